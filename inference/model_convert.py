"""Converting a fetched model (HF directory or GGUF file) once into the engine's on-disk format.

Output directory: `model.safetensors` (every tensor in one dtype: float16 on CUDA, float32 on the
CPU unless asked otherwise), `config.json` and `tokenizer.json`. GGUF files are read with the
engine's own loader (`inference.engine.loader.load_gguf`), never a second GGUF parser. Tensors
are written contiguous and untied (safetensors refuses shared storage), so the engine can mmap them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from .model_sources import Fetched
from .model_store import Progress

DTYPES = ("auto", "float32", "float16", "bfloat16")
_HF_SIDE_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")


def resolve_dtype(dtype: str) -> str:
    """"auto" -> float16 when CUDA is available, else float32 (fp16 matmuls are slow on CPUs)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if dtype != "auto":
        return dtype
    import torch

    return "float16" if torch.cuda.is_available() else "float32"


def convert(fetched: Fetched, out_dir: Path, dtype: str, progress: Progress) -> dict[str, Any]:
    """Write the engine's format into `out_dir`; returns manifest details (dtype, tensors, bytes)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    progress("convert", 0, None)
    if fetched.format == "hf":
        state = _read_hf_weights(fetched.path)
        for name in _HF_SIDE_FILES:
            if (fetched.path / name).is_file():
                shutil.copyfile(fetched.path / name, out_dir / name)
    elif fetched.format == "gguf":
        state = _read_gguf(fetched.path, out_dir)
    else:
        raise ValueError(f"unknown fetched format {fetched.format!r}")
    details = _write_weights(state, out_dir / "model.safetensors", dtype, progress)
    progress("convert", 1, 1)
    return details


def _read_hf_weights(path: Path) -> dict:
    from safetensors.torch import load_file

    state: dict = {}
    for shard in sorted(path.glob("*.safetensors")):
        state.update(load_file(str(shard)))
    return state


def _read_gguf(path: Path, out_dir: Path) -> dict:
    from .engine.loader import load_gguf

    config, state, tokenizer = load_gguf(path)
    (out_dir / "config.json").write_text(json.dumps(_config_dict(config), indent=2) + "\n", encoding="utf-8")
    _save_tokenizer(tokenizer, out_dir / "tokenizer.json")
    return state


def _config_dict(config: Any) -> dict:
    """The engine config as HF-style JSON (what the engine's directory loader reads back)."""
    import dataclasses

    for method in ("to_hf_dict", "to_dict"):
        if hasattr(config, method):
            return dict(getattr(config, method)())
    if dataclasses.is_dataclass(config):
        return dataclasses.asdict(config)
    if isinstance(config, dict):
        return dict(config)
    raise TypeError(f"cannot serialise engine config of type {type(config).__name__}")


def _save_tokenizer(tokenizer: Any, path: Path) -> None:
    inner = getattr(tokenizer, "tokenizer", tokenizer)
    if hasattr(inner, "save"):
        inner.save(str(path))
    elif hasattr(inner, "to_str"):
        path.write_text(inner.to_str(), encoding="utf-8")
    else:
        raise TypeError(f"cannot save tokenizer of type {type(tokenizer).__name__}")


def _write_weights(state: dict, path: Path, dtype: str, progress: Progress) -> dict[str, Any]:
    import torch
    from safetensors.torch import save_file

    target = getattr(torch, dtype)
    converted = {}
    seen: set[int] = set()
    for index, (name, tensor) in enumerate(sorted(state.items())):
        out = (tensor.to(target) if tensor.is_floating_point() else tensor).contiguous()
        if out.data_ptr() in seen:  # tied weights share storage; safetensors needs separate copies
            out = out.clone()
        seen.add(out.data_ptr())
        converted[name] = out
        progress("convert tensors", index + 1, len(state))
    save_file(converted, str(path), metadata={"format": "pt", "dtype": dtype})
    params = sum(t.numel() for t in converted.values())
    return {"dtype": dtype, "tensors": len(converted), "parameters": params, "bytes": path.stat().st_size}
