#!/usr/bin/env bash
# CI for the VS Code extension: clean install, strict type check, unit tests, bundle, .vsix.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
npx --no-install tsc -p . --noEmit
rm -rf out && npx --no-install tsc -p .
node --test out/test/
bash scripts/package.sh
