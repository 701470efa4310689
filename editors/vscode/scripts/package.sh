#!/usr/bin/env bash
# Packages the extension as dist/arbor-ls-<version>.vsix, offline: the bundle already holds every
# runtime dependency, so vsce runs with --no-dependencies and needs no network.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/bundle.mjs --production
version=$(node -p "require('./package.json').version")
mkdir -p dist
npx --no-install vsce package --no-dependencies --skip-license --allow-missing-repository \
  --out "dist/arbor-ls-${version}.vsix"
echo "packaged dist/arbor-ls-${version}.vsix"
