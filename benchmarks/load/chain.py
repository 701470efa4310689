"""Three-file reference chains: C imports B, B imports a definition of A.

A chain scenario edits the definition in A (the kind of edit that must invalidate cached context of
B and C) and then asks for completions in C and B. `ReferenceChain.definition_edit(i)` gives the
i-th edit; even and odd edits alternate between two variants of the definition line, so replaying
them in order always leaves A in one of two known states.

The default bench workspace writes a generated chain (`write_generated_chain`); for a user's
workspace `find_python_chain` looks for a real one by following `import` statements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .traces import utf16_len

SKIP_DIRS = frozenset({".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", "site-packages", "build", "dist"})


@dataclass(frozen=True, slots=True)
class ReferenceChain:
    files: tuple[Path, Path, Path]  # (A: defines, B: uses A, C: uses B)
    definition_line: int  # line of A that the edits rewrite
    variants: tuple[str, str]  # the two texts of that line (without newline); variants[0] is on disk

    def definition_edit(self, i: int) -> dict:
        """The change event that turns variant (i % 2) of the definition line into the other one."""
        old, new = self.variants[i % 2], self.variants[(i + 1) % 2]
        return {
            "range": {
                "start": {"line": self.definition_line, "character": 0},
                "end": {"line": self.definition_line, "character": utf16_len(old)},
            },
            "text": new,
        }


_GEOMETRY = '''"""Shapes and their measurements (level 0 of the bench reference chain)."""

from dataclasses import dataclass


@dataclass
class Rect:
    width: float
    height: float

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)


def scaled_area(rect: Rect, factor: float) -> float:
    """Area of `rect` after scaling both sides by `factor`."""
    return rect.width * rect.height * factor * factor


def fits_inside(inner: Rect, outer: Rect) -> bool:
    return inner.width <= outer.width and inner.height <= outer.height
'''

_LAYOUT = '''"""Layouts of rectangles (level 1: uses geometry)."""

from chain.geometry import Rect, fits_inside, scaled_area


def total_area(rects: list[Rect], factor: float = 1.0) -> float:
    """Sum of the scaled areas of `rects`."""
    return sum(scaled_area(rect, factor) for rect in rects)


def widest(rects: list[Rect]) -> Rect | None:
    return max(rects, key=lambda rect: rect.width, default=None)


def pack_row(rects: list[Rect], frame: Rect) -> list[Rect]:
    placed: list[Rect] = []
    used = 0.0
    for rect in rects:
        if fits_inside(rect, frame) and used + rect.width <= frame.width:
            placed.append(rect)
            used += rect.width
    return placed
'''

_REPORT = '''"""Reports about layouts (level 2: uses layout, which uses geometry)."""

from chain.geometry import Rect
from chain.layout import pack_row, total_area, widest


def describe(rects: list[Rect], frame: Rect) -> str:
    row = pack_row(rects, frame)
    area = total_area(row, factor=1.0)
    biggest = widest(row)
    width = biggest.width if biggest else 0.0
    return f"{len(row)} of {len(rects)} placed, area {area:.1f}, widest {width:.1f}"


def coverage(rects: list[Rect], frame: Rect) -> float:
    """Share of `frame` covered by the rectangles that fit in one row."""
    row = pack_row(rects, frame)
    return total_area(row) / max(total_area([frame]), 1e-9)
'''

GENERATED_DEFINITION = "def scaled_area(rect: Rect, factor: float) -> float:"
GENERATED_VARIANT = "def scaled_area(rect: Rect, factor: float, margin: float = 0.0) -> float:"


def write_generated_chain(root: Path) -> ReferenceChain:
    """Write chain/{geometry,layout,report}.py under `root` and describe the chain."""
    package = root / "chain"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    files = []
    for name, text in (("geometry", _GEOMETRY), ("layout", _LAYOUT), ("report", _REPORT)):
        path = package / f"{name}.py"
        path.write_text(text)
        files.append(path)
    line = _GEOMETRY.splitlines().index(GENERATED_DEFINITION)
    return ReferenceChain((files[0], files[1], files[2]), line, (GENERATED_DEFINITION, GENERATED_VARIANT))


_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(?:\(([^)]*)\)|([\w \t,]+))", re.M)
_DEF = re.compile(r"^(?:async\s+)?(?:def|class)\s+(\w+)", re.M)


def files_with_suffix(root: Path, suffixes: frozenset[str] | set[str], limit: int) -> list[Path]:
    """Files under `root` whose lower-case suffix is in `suffixes`, skipping hidden and vendor dirs."""
    found: list[Path] = []
    stack = [root]
    while stack and len(found) < limit:
        directory = stack.pop()
        try:
            entries = sorted(directory.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir():
                if entry.name not in SKIP_DIRS and not entry.name.startswith("."):
                    stack.append(entry)
            elif entry.suffix.lower() in suffixes:
                found.append(entry)
    return found


def python_files(root: Path, limit: int = 3000) -> list[Path]:
    return files_with_suffix(root, {".py"}, limit)


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, importer: str, is_package: bool) -> str:
    """Absolute module name of `module` as written in `importer` (handles leading dots)."""
    dots = len(module) - len(module.lstrip("."))
    if not dots:
        return module
    base = importer.split(".") if importer else []
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (dots - 1)] if dots > 1 else base
    rest = module[dots:]
    return ".".join(base + ([rest] if rest else []))


def _imported_names(clause: str) -> list[str]:
    """`a, b as c` -> ["a", "b"] (the names as the defining module spells them)."""
    return [part.split()[0] for part in clause.replace("\n", " ").split(",") if part.split()]


def find_python_chain(root: Path) -> ReferenceChain | None:
    """A real chain C -> B -> A in `root`: B imports a top-level def/class `name` from A, C imports
    something from B. The edit renames `name` on its definition line (and back)."""
    modules: dict[str, Path] = {}
    for path in python_files(root):
        modules[_module_name(root, path)] = path
    imports: dict[str, list[tuple[str, list[str]]]] = {}
    texts: dict[str, str] = {}
    for name, path in modules.items():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        texts[name] = text
        is_package = path.name == "__init__.py"
        imports[name] = [
            (_resolve(m.group(1), name, is_package), _imported_names(m.group(2) or m.group(3)))
            for m in _FROM_IMPORT.finditer(text)
        ]
    for c_name, c_imports in sorted(imports.items()):
        for b_name, _ in c_imports:
            if b_name not in imports or b_name == c_name:
                continue
            for a_name, names in imports[b_name]:
                if a_name not in texts or a_name in (b_name, c_name):
                    continue
                defined = {m.group(1): m for m in _DEF.finditer(texts[a_name])}
                for symbol in names:
                    match = defined.get(symbol)
                    if match is None:
                        continue
                    a_text = texts[a_name]
                    line = a_text.count("\n", 0, match.start())
                    original = a_text.splitlines()[line]
                    variant = original.replace(symbol, f"{symbol}_renamed", 1)
                    files = (modules[a_name], modules[b_name], modules[c_name])
                    return ReferenceChain(files, line, (original, variant))
    return None
