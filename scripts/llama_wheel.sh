#!/usr/bin/env bash
# Build (once) and print the path of a portable llama-cpp-python wheel.
#
# llama.cpp built with its default native flags uses every instruction the build
# machine advertises (AMX here), and crashes with SIGILL on CPUs or kernels that
# lack them. We build for a portable x86-64 baseline (AVX2/FMA/F16C, no native
# tuning) and keep the wheel in a per-user cache keyed by version and flags, so a
# fresh clone elsewhere on the same machine reuses it instead of compiling again.
# pip's own wheel cache ignores CMAKE_ARGS, so it is bypassed (--no-cache-dir).
set -euo pipefail

VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
FLAGS="${LANTERN_LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}"
PY="${PYTHON:-python3}"
PYTAG="$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
KEY="$(printf '%s|%s|%s|%s' "$VERSION" "$FLAGS" "$PYTAG" "$(uname -m)" | sha256sum | cut -c1-16)"
CACHE="${LANTERN_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lantern/wheels}/llama-cpp-python-$VERSION-$KEY"

wheel="$(ls "$CACHE"/llama_cpp_python-"$VERSION"-*.whl 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ]; then
  echo "Building llama-cpp-python $VERSION for a portable CPU (8-15 minutes, once per machine)..." >&2
  tmp="$(mktemp -d)"
  CMAKE_ARGS="$FLAGS" FORCE_CMAKE=1 CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    "$PY" -m pip wheel --no-cache-dir --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$VERSION" -w "$tmp" >&2
  mkdir -p "$CACHE"
  mv "$tmp"/llama_cpp_python-*.whl "$CACHE"/
  printf '%s\n' "$FLAGS" > "$CACHE/CMAKE_ARGS.txt"
  rm -rf "$tmp"
  wheel="$(ls "$CACHE"/llama_cpp_python-"$VERSION"-*.whl | head -n1)"
fi
echo "$wheel"
