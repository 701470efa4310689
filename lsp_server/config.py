"""The settings tree: keyword-only dataclasses with defaults, camelCase on the wire.

Settings arrive from `initializationOptions`, `workspace/didChangeConfiguration` and, for the
CLI, `--config FILE` (JSON or TOML, same shape). `load_settings` never raises for bad input:
every unknown key or invalid value becomes a problem message naming the dotted wire key, and the
default stands in for that key alone. Each section is added here as its own small dataclass;
README's settings table documents every key.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cattrs

from inference.backend_spec import BackendSpec
from inference.breaker import BreakerSettings
from inference.cache.settings import CacheSettings
from inference.routing import RouteSettings
from indexer.workspace import DEFAULT_EXCLUDE, DEFAULT_INCLUDE, MAX_FILE_BYTES, MAX_FILES, MAX_PARSED_BUFFERS

from .errors import UsageError
from .privacy.settings import PrivacySettings

MULTILINE_MODES = ("auto", "always", "never")


@dataclass(slots=True, kw_only=True)
class CompletionSettings:
    enabled: bool = True
    multiline: str = "auto"
    max_tokens: int = 128
    max_line_tokens: int = 48  # most tokens asked for a single-line completion
    max_lines: int = 12
    # a multi-line completion ends at the first line break after this long (0: no limit): on a slow
    # machine the first line or two arrive before VS Code gives up on the request (~0.8 s)
    multiline_budget_ms: int = 200
    warm_up: bool = True  # prefill the next prompt into the backend's KV cache when edits settle
    speculate: bool = True  # compute the completion that follows accepting a suggestion

    def __post_init__(self) -> None:
        if self.multiline not in MULTILINE_MODES:
            raise ValueError(f"must be one of {', '.join(MULTILINE_MODES)}")
        if self.max_tokens <= 0 or self.max_lines <= 0 or self.max_line_tokens <= 0:
            raise ValueError("must be positive")
        if self.multiline_budget_ms < 0:
            raise ValueError("multilineBudgetMs must be 0 or more")


@dataclass(slots=True, kw_only=True)
class ContextSettings:
    budget_tokens: int = 1024
    prefix_share: float = 0.45
    suffix_share: float = 0.15
    # the budget shrinks to what the backend prefills in this time at its measured speed (0: off)
    max_prompt_ms: int = 3000
    # tree-sitter work (parse, queries) for one context; past it the context is the text windows only
    syntax_budget_ms: int = 50

    def __post_init__(self) -> None:
        if self.budget_tokens < 64:
            raise ValueError("must be at least 64")
        if self.max_prompt_ms < 0:
            raise ValueError("maxPromptMs must not be negative")
        if self.syntax_budget_ms < 1:
            raise ValueError("syntaxBudgetMs must be at least 1")
        if not (0 < self.prefix_share < 1 and 0 <= self.suffix_share < 1):
            raise ValueError("shares must lie between 0 and 1")
        if self.prefix_share + self.suffix_share > 1:
            raise ValueError("prefixShare + suffixShare must not exceed 1")


@dataclass(slots=True, kw_only=True)
class IndexSettings:
    """The workspace index: which files it scans (globs relative to each workspace folder)."""

    enabled: bool = True
    include: list[str] = field(default_factory=lambda: list(DEFAULT_INCLUDE))
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    max_file_bytes: int = MAX_FILE_BYTES
    max_files: int = MAX_FILES
    max_parsed_buffers: int = MAX_PARSED_BUFFERS
    snapshot: bool = True
    workers: int = 0  # processes parsing during a scan; 0: one per CPU (at most 8), 1: none

    def __post_init__(self) -> None:
        if self.max_file_bytes <= 0:
            raise ValueError("must be positive")
        if self.max_files <= 0:
            raise ValueError("maxFiles must be positive")
        if self.max_parsed_buffers <= 0:
            raise ValueError("maxParsedBuffers must be positive")
        if self.workers < 0:
            raise ValueError("workers must be 0 (automatic) or positive")


def _default_backends() -> list[BackendSpec]:
    return [BackendSpec(name="embedded", kind="embedded")]


@dataclass(slots=True, kw_only=True)
class Settings:
    backends: list[BackendSpec] = field(default_factory=_default_backends)
    completion: CompletionSettings = field(default_factory=CompletionSettings)
    context: ContextSettings = field(default_factory=ContextSettings)
    cache: CacheSettings = field(default_factory=CacheSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    route: RouteSettings = field(default_factory=RouteSettings)  # backends per mode, deadlines
    breaker: BreakerSettings = field(default_factory=BreakerSettings)
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    log_level: str = "warning"  # applies unless `--log-level` was given (lsp_server/log_config.py)
    log_file: str = ""  # JSON lines as well: a path, "auto" (the user log directory) or "" (none)


def camel(name: str) -> str:
    """snake_case -> camelCase; `kv_cache_mb` -> `kvCacheMB` (MB stays an acronym)."""
    head, *rest = name.split("_")
    return head + "".join("MB" if part == "mb" else part.capitalize() for part in rest)


def _strict_converter() -> cattrs.Converter:
    """A converter that refuses lossy coercions ("yes" -> bool, 1.5 -> int, 3 -> str)."""
    conv = cattrs.Converter()

    def exact(kind: type, accepted: tuple[type, ...]):
        def hook(value: Any, _type: Any) -> Any:
            if isinstance(value, bool) and kind is not bool:
                raise TypeError(f"expected {kind.__name__}, got a boolean")
            if not isinstance(value, accepted):
                raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
            if kind is int and isinstance(value, float):
                if not value.is_integer():
                    raise TypeError("expected an integer")
            return kind(value)

        return hook

    conv.register_structure_hook(bool, exact(bool, (bool,)))
    conv.register_structure_hook(int, exact(int, (int, float)))
    conv.register_structure_hook(float, exact(float, (int, float)))
    conv.register_structure_hook(str, exact(str, (str,)))
    return conv


_CONVERTER = _strict_converter()


def _structure_dataclass(cls: type, data: Any, where: str, problems: list[str]) -> Any:
    """Build `cls` from wire data key by key; bad keys are reported and left at their default."""
    if not isinstance(data, dict):
        problems.append(f"{where or 'settings'}: expected an object, got {type(data).__name__}")
        return cls()
    hints = typing.get_type_hints(cls)
    wire_to_field = {camel(f.name): f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, raw in data.items():
        dotted = f"{where}.{key}" if where else key
        f = wire_to_field.get(key)
        if f is None:
            problems.append(f"{dotted}: unknown setting (ignored)")
            continue
        try:
            values[f.name] = _structure_value(hints[f.name], raw, dotted, problems)
        except (TypeError, ValueError, cattrs.BaseValidationError) as exc:
            problems.append(f"{dotted}: {_reason(exc)}; using the default")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        # A check in __post_init__ failed: find the one key whose default makes the object valid.
        for name in values:
            trial = {k: v for k, v in values.items() if k != name}
            try:
                obj = cls(**trial)
            except (TypeError, ValueError):
                continue
            dotted = f"{where}.{camel(name)}" if where else camel(name)
            problems.append(f"{dotted}: {_reason(exc)}; using the default")
            return obj
        problems.append(f"{where or 'settings'}: {_reason(exc)}; using the defaults")
        return cls()


def _structure_value(tp: Any, raw: Any, where: str, problems: list[str]) -> Any:
    if dataclasses.is_dataclass(tp):
        return _structure_dataclass(tp, raw, where, problems)
    origin = typing.get_origin(tp)
    if origin is list:
        (item_type,) = typing.get_args(tp)
        if not isinstance(raw, list):
            raise TypeError(f"expected a list, got {type(raw).__name__}")
        items = []
        for i, item in enumerate(raw):
            before = len(problems)
            value = _structure_value(item_type, item, f"{where}[{i}]", problems)
            if dataclasses.is_dataclass(item_type) and len(problems) > before and not isinstance(item, dict):
                continue
            items.append(value)
        return items
    if origin in (typing.Union, types.UnionType):
        return _CONVERTER.structure(raw, tp)
    return _CONVERTER.structure(raw, tp)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, cattrs.BaseValidationError) and exc.exceptions:
        return _reason(exc.exceptions[0])
    return str(exc) or type(exc).__name__


def load_settings(data: Any) -> tuple[Settings, list[str]]:
    """Wire data (camelCase) -> (Settings, problems). Never raises; `None` means all defaults."""
    problems: list[str] = []
    if data is None:
        return Settings(), problems
    if isinstance(data, dict) and "arbor" in data and isinstance(data["arbor"], dict):
        data = data["arbor"]  # didChangeConfiguration payloads are often namespaced
    settings = _structure_dataclass(Settings, data, "", problems)
    if not settings.backends:
        problems.append("backends: the list is empty; using the default embedded backend")
        settings.backends = _default_backends()
    return settings, problems


def read_config_file(path: str | Path) -> Any:
    """Read a JSON or TOML settings file. Raises UsageError with one line on failure."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read config file {p}: {exc.strerror or exc}") from None
    try:
        if p.suffix.lower() == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover
                import tomli as tomllib
            return tomllib.loads(raw.decode("utf-8"))
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"config file {p} is not valid {p.suffix.lstrip('.').upper() or 'JSON'}: {exc}") from None


def to_wire(settings: Any) -> Any:
    """Settings -> camelCase JSON-able data (the inverse of load_settings for valid input)."""
    if dataclasses.is_dataclass(settings):
        return {camel(f.name): to_wire(getattr(settings, f.name)) for f in dataclasses.fields(settings)}
    if isinstance(settings, list):
        return [to_wire(x) for x in settings]
    return settings
