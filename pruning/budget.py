"""Token counting and the FIM windows of a prompt.

A `Tokenizer` is anything with `count(text) -> int`. `ApproxTokenizer` is a fast stand-in for a
code model's byte-level BPE: it cuts text into the pieces the BPE's pre-tokenizer makes (Qwen2,
Llama 3 and GPT-4 share the rule: a letter run with one leading space or mark, each digit, a run of
marks with one leading space, a run of blanks) and counts one token per piece and one more per
seven letters beyond the first seven of a run; it is within a few percent of the Qwen2.5 tokenizer's
count on real Python, TypeScript, Go and Rust files (benchmarks/README.md, "Token counts"). It is
additive over lines: no piece crosses a newline, so `count(a + b) == count(a) + count(b)` whenever
`a` ends with a newline. `ModelTokenizer` wraps a Hugging Face `tokenizers.Tokenizer` (the model's
own), which is the exact figure when known.

Window invariants:
- windows (`prefix_window`, `suffix_window`) only ever cut at line boundaries and never exceed
  their budget; the one exception to whole lines is a cursor line that alone exceeds the budget,
  which is trimmed at its far end (the start of the prefix's last line, the end of the suffix's
  first line) so that the text next to the cursor survives;
- with `quantum` q > 1 the suffix window holds a multiple of q whole lines after the cursor line
  (or all of the suffix, or fewer than q lines when no more fit): text typed at the cursor never
  moves its end while its budget is unchanged. It holds at most q - 1 lines fewer than the
  unquantised one;
- the prefix window's start is kept steady by its caller instead: `prefix_window_from` gives the
  window from a given start line (the one the previous prompt showed) while it fits, so
  consecutive prompts share their beginning in a KV prefix cache.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


_PIECE = re.compile(
    r"(?:[^\r\n\w]|_)?[^\W\d_]+"  # a letter run, with one leading space, mark or underscore
    r"|\d"  # each digit
    r"| ?(?:[^\s\w]|_)+\n?"  # a run of marks, with one leading space and the line's end
    r"|[^\S\n]*\n"  # a line's end, with the blanks before it
    r"|[^\S\n]+(?!\S)"  # blanks, leaving the last one to the word after them
    r"|[^\S\n]+"
)
LETTERS_PER_TOKEN = 7
_LONG_RUN = re.compile(r"[^\W\d_]{%d,}" % (LETTERS_PER_TOKEN + 1))  # runs are maximal: whole runs


@runtime_checkable
class Tokenizer(Protocol):
    """Counts the tokens a model would see for `text` (no special tokens added)."""

    def count(self, text: str) -> int: ...


class ApproxTokenizer:
    """Pre-tokenizer pieces of a byte-level code BPE; a letter run of n letters costs
    1 + (n - 1) // LETTERS_PER_TOKEN, every other piece 1."""

    name = "approx"
    lines_add_up = True  # count(a + b) == count(a) + count(b) whenever `a` ends with a newline

    def count(self, text: str) -> int:
        return _approx_count(text)


def _approx_count(text: str) -> int:
    """The pieces are counted in C (`subn` counts matches without building them), then the long
    letter runs add what they cost beyond 1."""
    return _PIECE.subn("", text)[1] + sum((len(run) - 1) // LETTERS_PER_TOKEN for run in _LONG_RUN.findall(text))


class ModelTokenizer:
    """The model's own tokenizer (a `tokenizers.Tokenizer` or anything with `encode(text).ids`)."""

    def __init__(self, tokenizer: object, name: str = "model") -> None:
        self._tokenizer = tokenizer
        self.name = name

    @classmethod
    def from_file(cls, path: str) -> ModelTokenizer:
        """Loads a `tokenizer.json`; needs the optional `tokenizers` package."""
        from tokenizers import Tokenizer as HFTokenizer  # optional dependency, imported lazily

        return cls(HFTokenizer.from_file(path), name=path)

    def count(self, text: str) -> int:
        if not text:
            return 0
        encoding = self._tokenizer.encode(text, add_special_tokens=False)  # type: ignore[attr-defined]
        return len(encoding.ids)


DEFAULT_TOKENIZER = ApproxTokenizer()


@dataclass(frozen=True, slots=True)
class Window:
    """A whole-line slice of the document: `text` starts at `start_line` (0-based)."""

    text: str
    start_line: int
    tokens: int


def prefix_window(prefix: str, budget: int, tokenizer: Tokenizer = DEFAULT_TOKENIZER, *,
                  lines: int | None = None) -> Window:
    """The longest tail of `prefix` made of whole lines (plus the cursor line) within `budget`.

    The cursor line (text after the last newline) is kept first, trimmed from its start only if it
    alone exceeds the budget. `lines` is `prefix.count("\n")` when the caller knows it already.
    """
    if lines is None:
        lines = prefix.count("\n")
    cut = prefix.rfind("\n") + 1
    kept = [_fit_tail(prefix[cut:], budget, tokenizer)]
    used = tokenizer.count(kept[0])
    if len(kept[0]) < len(prefix) - cut:
        return Window(text=kept[0], start_line=lines, tokens=used)
    end = cut
    while end > 0:
        start = prefix.rfind("\n", 0, end - 1) + 1
        line = prefix[start:end]
        cost = tokenizer.count(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
        end = start
    return Window(text="".join(reversed(kept)), start_line=lines - (len(kept) - 1), tokens=used)


def prefix_window_from(prefix: str, start_line: int, limit: int, tokenizer: Tokenizer = DEFAULT_TOKENIZER, *,
                       lines: int | None = None) -> Window | None:
    """The tail of `prefix` from its line `start_line` on, or None when that is not a line before
    or at the cursor's or the tail holds more than `limit` tokens."""
    if lines is None:
        lines = prefix.count("\n")
    if not 0 <= start_line <= lines:
        return None
    longest = prefix_window(prefix, limit, tokenizer, lines=lines)
    if longest.start_line > start_line or len(longest.text) < len(prefix) - prefix.rfind("\n") - 1:
        return None  # it starts later, or the cursor line alone is over the limit
    text, at, tokens = longest.text, 0, longest.tokens
    for _ in range(start_line - longest.start_line):  # its lines before `start_line` go, as counted there
        end = text.index("\n", at) + 1
        tokens -= tokenizer.count(text[at:end])
        at = end
    return Window(text=text[at:], start_line=start_line, tokens=tokens)


def suffix_window(suffix: str, budget: int, tokenizer: Tokenizer = DEFAULT_TOKENIZER, *,
                  quantum: int = 1) -> Window:
    """The longest head of `suffix` made of whole lines within `budget`; the rest of the cursor
    line (up to and including its newline) is always kept. With `quantum` > 1 the lines after the
    cursor line are a multiple of `quantum` unless the whole suffix fits or fewer than `quantum`
    lines do."""
    first_end = suffix.find("\n") + 1 or len(suffix)
    kept = [_fit_head(suffix[:first_end], budget, tokenizer)]
    used = tokenizer.count(kept[0])
    if len(kept[0]) < first_end:
        return Window(text=kept[0], start_line=0, tokens=used)
    costs = [used]
    start = first_end
    while start < len(suffix):
        end = suffix.find("\n", start) + 1 or len(suffix)
        line = suffix[start:end]
        cost = tokenizer.count(line)
        if used + cost > budget:
            break
        kept.append(line)
        costs.append(cost)
        used += cost
        start = end
    extra = (len(kept) - 1) % quantum if quantum > 1 and start < len(suffix) and len(kept) > quantum else 0
    if extra:
        used -= sum(costs[len(kept) - extra:])
        del kept[len(kept) - extra:]
    return Window(text="".join(kept), start_line=0, tokens=used)


def _fit_tail(text: str, budget: int, tokenizer: Tokenizer) -> str:
    """`text` itself if it fits, else its longest suffix that fits (binary search on characters)."""
    if tokenizer.count(text) <= budget:
        return text
    low, high = 0, len(text)  # invariant: text[high:] fits
    while low < high:
        mid = (low + high) // 2
        if tokenizer.count(text[mid:]) <= budget:
            high = mid
        else:
            low = mid + 1
    return text[high:]


def _fit_head(text: str, budget: int, tokenizer: Tokenizer) -> str:
    """`text` itself if it fits, else its longest prefix that fits."""
    if tokenizer.count(text) <= budget:
        return text
    low, high = 0, len(text)  # invariant: text[:low] fits
    while low < high:
        mid = (low + high + 1) // 2
        if tokenizer.count(text[:mid]) <= budget:
            low = mid
        else:
            high = mid - 1
    return text[:low]


@dataclass(frozen=True, slots=True)
class BudgetShares:
    """Guaranteed shares of the budget for the FIM windows; snippets get what is left first.

    `prefix` and `suffix` are fractions of the total budget reserved for the prefix and suffix
    windows. Snippets are packed into `budget * (1 - prefix - suffix)`; what snippets leave unused
    flows back to the prefix window (then the suffix window).
    """

    prefix: float = 0.45
    suffix: float = 0.15

    def __post_init__(self) -> None:
        if self.prefix < 0 or self.suffix < 0 or self.prefix + self.suffix > 1:
            raise ValueError("prefix and suffix shares must be >= 0 and sum to at most 1")

    def snippet_budget(self, budget: int) -> int:
        return max(0, budget - int(budget * self.prefix) - int(budget * self.suffix))
