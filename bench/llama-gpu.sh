#!/usr/bin/env bash
# One command for a machine with a GPU: the in-process llama.cpp judge (node-llama-cpp's CUDA build, every layer
# on the GPU) and llama-cpp-python's OpenAI-compatible server (built with CUDA by scripts/test-models.sh) judge
# the same MT-Bench games on one GGUF; prints games/s of each (bench/llama.ts) and the GPU memory used at peak.
#
#   bench/llama-gpu.sh [MODEL.gguf] [--sequences 8 --questions 10 ...: more bench/llama.ts options]
#
# MODEL defaults to the test model (SmolLM2-135M-Instruct). Needs MTBENCH_DIR (../shared/mt_bench by default).
set -euo pipefail
cd "$(dirname "$0")/.."
export MTBENCH_DIR="${MTBENCH_DIR:-$(cd .. && pwd)/shared/mt_bench}"

if ! command -v nvidia-smi >/dev/null; then
  echo "llama-gpu: no nvidia-smi here: this needs a machine with an NVIDIA GPU (bench/llama.ts measures the CPU)" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

# the test model, and a CUDA build of llama-cpp-python for the server (minutes the first time; cached)
eval "$(LLAMA_CPP_GPU=cuda bash scripts/test-models.sh)"
model="$REAL_GGUF"
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  model=$1
  shift
fi

vram_log=$(mktemp)
# GPU memory in use, once a second, while the bench runs
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -l 1 >"$vram_log" &
sampler=$!
trap 'kill $sampler 2>/dev/null; rm -f "$vram_log"' EXIT
idle=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)

node --import tsx bench/llama.ts --model "$model" --gpu-layers max --server --server-gpu-layers=-1 \
  --threads "$(nproc)" --ctx 4096 --sequences 8 --questions 10 --models 6 --max-tokens 256 --rounds 1 "$@"

peak=$(sort -n "$vram_log" | tail -1)
echo "GPU memory: ${idle} MiB before, ${peak} MiB at peak (both judges load the model in turn, not together)"
