"""Backend factory: one `BackendSpec` -> one `Backend`. Each kind's module is imported lazily,
so that torch is loaded only when an embedded backend is configured.

Backends are created in worker threads (a server builds its pipeline off the event loop, and a
settings change can start a second build before the first ends). Two threads importing httpx's
module graph at once can each be handed the other's half-initialised module (Python breaks the
import-lock cycle that way), so backends are imported and created under one lock, one at a time."""

from __future__ import annotations

import importlib
import threading

from ..api import Backend, BackendConfigError
from ..backend_spec import BackendSpec

_MODULES = {
    "openai": ("inference.backends.openai", "OpenAIBackend"),
    "ollama": ("inference.backends.ollama", "OllamaBackend"),
    "tgi": ("inference.backends.tgi", "TGIBackend"),
    "llamacpp": ("inference.backends.llamacpp", "LlamaCppBackend"),
    "embedded": ("inference.backends.embedded", "EmbeddedBackend"),
}
_CREATING = threading.RLock()  # re-entrant: a "python" backend may create others


def _load_class(module_name: str, class_name: str, what: str) -> type:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in ("torch", "safetensors", "tokenizers", "gguf", "numpy"):
            raise BackendConfigError(
                f"{what} needs the embedded extra: pip install 'arbor-ls[embedded]' (missing {exc.name})"
            ) from None
        raise BackendConfigError(f"{what}: cannot import {module_name}: {exc}") from None
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise BackendConfigError(f"{what}: {module_name} has no {class_name}") from None


def create_backend(spec: BackendSpec) -> Backend:
    """Build the backend a spec describes. Raises BackendConfigError with a one-line reason."""
    with _CREATING:
        return _create(spec)


def _create(spec: BackendSpec) -> Backend:
    what = f"backend {spec.name!r} (kind {spec.kind})"
    if spec.kind == "python":
        module_name, _, class_name = spec.model.partition(":")
        if not module_name or not class_name:
            raise BackendConfigError(f"{what}: model must be 'package.module:ClassName', got {spec.model!r}")
        cls = _load_class(module_name, class_name, what)
    elif spec.kind in _MODULES:
        cls = _load_class(*_MODULES[spec.kind], what)
    else:
        raise BackendConfigError(f"{what}: unknown kind")
    return cls(spec)
