"""Secret-looking strings and the same-length mask that hides them.

Invariants:
- `redact(text)` returns a string of the same length as `text` in code points, in UTF-8 bytes
  and in UTF-16 units: only ASCII characters inside a match are replaced (by `MASK`), and line
  breaks are kept. Byte offsets into a file (the index's trees) and LSP positions stay valid.
- Redaction is idempotent: a masked value no longer matches any pattern, and `redact` of a
  redacted text changes nothing.
- Each kind of secret has one pattern; the masked span is the secret itself, so what surrounds
  it (`API_KEY = "`, `postgres://`, `@db:5432/app`, a key block's BEGIN/END lines) stays
  readable for the model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

MASK = "*"
_KEEP = frozenset("\r\n")

# (kind, pattern, the group holding the secret (0: the whole match), the literals one of which
# begins every match): a pattern is only tried where one of its literals occurs, so a text costs
# a few substring searches plus one anchored match per occurrence
_KEY_BLOCK_END = r"(?=-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)"
_TOKEN_RULES: tuple[tuple[str, re.Pattern[str], int, tuple[str, ...]], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:([\s\S]{1,16384}?)" + _KEY_BLOCK_END +
        # a block whose END line is missing: its base64 lines
        r"|((?:[ \t]*(?:\\n|\r?\n)?[ \t]*[A-Za-z0-9+/=]{16,})+))"), -1, ("-----BEGIN ",)),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b"), 0,
     ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b"), 0,
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("slack_token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,250}"), 0, ("xox",)),
    ("slack_webhook", re.compile(r"hooks\.slack\.com/services/([A-Za-z0-9/_-]{16,})"), 1, ("hooks.slack.com/",)),
    ("api_token", re.compile(r"\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,250}"), 0, ("sk-",)),
    ("api_token", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,250}"), 0,
     ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 0, ("AIza",)),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0, ("eyJ",)),
)

# Rules matched around a common word (`_anchored`): "bearer <token>", scheme://USERINFO@host (the whole userinfo: user:password, or a token used as
# the user), and assignments of a value to a secret-sounding name.
_CREDENTIAL_WORDS = ("bearer", "basic", "token")  # followed by blanks and the credential
_CREDENTIAL = re.compile(r"[ \t]+([A-Za-z0-9._~+/=-]{16,})")
_USERINFO = re.compile(r"([^\s/?#@'\"`<>]{1,256})@(?=[A-Za-z0-9\[])")
_SCHEME_BEFORE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,20}$")
# words that make a name secret-sounding (searched in the lower-cased text)
_NAME_WORDS = ("pass", "pwd", "secret", "token", "key", "credential", "auth")
_SECRET_NAME = re.compile(
    r"(?i)passw(?:or)?d|passwd|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key"
    r"|[_.-]key(?![a-z])|credential|auth")
_NAME_REST = re.compile(r"[A-Za-z0-9_.-]{0,128}")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
# after the name: the operator, then "value" / 'value' / `value` / value (env, ini, yaml)
_VALUE_AFTER_NAME = re.compile(
    r"[\"']?[ \t]*(?::=|=>|=|:)[ \t]*"
    r"(?:(?P<q>[\"'`])(?P<quoted>[^\"'`\r\n]{6,512})(?P=q)|(?P<bare>[^\s\"'`#,;()\[\]{}<>]{8,512}))")
_PASSWORD_NAME = re.compile(r"(?i)passw(?:or)?d|passwd|pwd|secret")
_CODE_REFERENCE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
_PLACEHOLDER = re.compile(
    r"(?i)^(?:x+|\*+|\.+|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%\([^)]*\)s|changeme|your[_-].*|example.*|dummy.*"
    r"|none|null|true|false|undefined)$")
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
MIN_ENTROPY_BITS = 3.0  # per character, for values assigned to key/token names


def entropy_bits(value: str) -> float:
    """Shannon entropy of `value` in bits per character."""
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _assigned_secret(name: str, value: str, quoted: bool) -> bool:
    """Whether `value`, assigned to the secret-sounding `name`, looks like a real secret."""
    if MASK * 3 in value or _PLACEHOLDER.match(value):
        return False
    if not quoted and _CODE_REFERENCE.match(value):
        return False  # `token = request.headers`, `password: PASSWORD_FIELD`
    if _PASSWORD_NAME.search(name):
        return len(value) >= 6
    return len(value) >= 8 and _random_looking(value)


def _occurrences(lowered: str, words: tuple[str, ...]):
    for word in words:
        at = lowered.find(word)
        while at != -1:
            yield word, at
            at = lowered.find(word, at + len(word))


def _random_looking(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and entropy_bits(value) >= MIN_ENTROPY_BITS


def _anchored(text: str, lowered: str) -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    for word, at in _occurrences(lowered, _CREDENTIAL_WORDS):
        if at and lowered[at - 1].isalnum():
            continue
        value = _CREDENTIAL.match(text, at + len(word))
        if value and _random_looking(value.group(1)):
            found.append(("bearer_token", value.start(1), value.end(1)))
    for _, at in _occurrences(lowered, ("://",)):
        if _SCHEME_BEFORE.search(text, max(0, at - 21), at):
            userinfo = _USERINFO.match(text, at + 3)
            if userinfo:
                found.append(("url_userinfo", userinfo.start(1), userinfo.end(1)))
    seen_names: set[int] = set()
    for _, at in _occurrences(lowered, _NAME_WORDS):
        end = _NAME_REST.match(text, at).end()
        value = _VALUE_AFTER_NAME.match(text, end)
        if value is None:
            continue
        start = at
        while start > 0 and start > at - 128 and text[start - 1] in _NAME_CHARS:
            start -= 1
        if start in seen_names:
            continue  # a second secret word inside a name already looked at
        seen_names.add(start)
        name = text[start:end]
        if not _SECRET_NAME.search(name):
            continue  # `keyword`, `monkey`: the word is not what the name is about
        group = "quoted" if value.group("quoted") is not None else "bare"
        if _assigned_secret(name, value.group(group), group == "quoted"):
            found.append(("assignment", value.start(group), value.end(group)))
    return found


def _group_span(m: re.Match[str], group: int) -> tuple[int, int]:
    if group >= 0:
        return m.span(group)
    return next(m.span(g) for g in range(1, len(m.groups()) + 1) if m.group(g) is not None)


# every literal a rule starts from: a text holding none of them (most lines) holds no secret
_ANY_LITERAL = re.compile("|".join(re.escape(literal) for literal in sorted(
    {literal for *_, literals in _TOKEN_RULES for literal in literals} | {"://"}, key=len, reverse=True)))
_ANY_WORD = re.compile("|".join(_CREDENTIAL_WORDS + _NAME_WORDS))  # searched in the lower-cased text


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every secret in `text` (spans may overlap)."""
    lowered = text.lower()
    if _ANY_LITERAL.search(text) is None and _ANY_WORD.search(lowered) is None:
        return []
    found: list[tuple[str, int, int]] = []
    for kind, pattern, group, literals in _TOKEN_RULES:
        for _, at in _occurrences(text, literals):
            m = pattern.match(text, at)
            if m:
                found.append((kind, *_group_span(m, group)))
    if len(lowered) != len(text):  # a few non-ASCII letters lower-case to two code points
        lowered = text.translate(_ASCII_LOWER)
    found.extend(_anchored(text, lowered))
    return found


def _mask_span(chars: list[str], start: int, end: int) -> bool:
    changed = False
    for i in range(start, end):
        c = chars[i]
        if c < "\x80" and c not in _KEEP and c != MASK:
            chars[i] = MASK
            changed = True
    return changed


def redact(text: str, count: Callable[[str], None] | None = None) -> str:
    """`text` with every secret masked (same length, see the module docstring); `count(kind)` is
    called once per secret masked."""
    spans = find_secrets(text)
    if not spans:
        return text
    chars = list(text)
    for kind, start, end in spans:
        if _mask_span(chars, start, end) and count is not None:
            count(kind)
    return "".join(chars)


def mask_literals(text: str, literals: frozenset[str]) -> str:
    """`text` with each of `literals` (known secrets: configured API keys) masked wherever it occurs."""
    for literal in literals:
        if literal and literal in text:
            text = text.replace(literal, MASK * len(literal))
    return text
