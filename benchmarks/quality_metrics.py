"""Line-completion scores as CrossCodeEval reports them: exact match and edit similarity of the
first line. Pure functions.

- `first_line` is the first line holding non-blank text (a completion that starts with a newline
  is judged by the line it then writes), without its line break.
- Both scores compare whitespace-stripped first lines. Edit similarity is
  `1 - levenshtein(a, b) / max(len(a), len(b))` (1.0 for two empty strings), in [0, 1].
"""

from __future__ import annotations


def first_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return line.rstrip("\r")
    return ""


def levenshtein(a: str, b: str) -> int:
    """Edit distance with unit-cost insertions, deletions and substitutions."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def edit_similarity(prediction: str, truth: str) -> float:
    a, b = first_line(prediction).strip(), first_line(truth).strip()
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest


def exact_match(prediction: str, truth: str) -> bool:
    return first_line(prediction).strip() == first_line(truth).strip()
