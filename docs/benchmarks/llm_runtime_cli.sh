#!/usr/bin/env bash
# Wall time of `l3mp update` with a server of its own per call, and with the shared server (docs/benchmarks/llm-runtime.md).
# Usage: bash docs/benchmarks/llm_runtime_cli.sh [OUT.tsv]   (from the checkout, after scripts/install.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
L3MP="$ROOT/.venv/bin/l3mp"
PY="$ROOT/.venv/bin/python"
OUT="${1:-/dev/stdout}"
export L3MP_STORE="$(mktemp -d)/store"
"$L3MP" init --house 3 >/dev/null
SENTENCES=("Jessica turned on the desk lamp in the bedroom."
           "Jessica turned off the desk lamp in the bedroom."
           "Michael turned on the faucet of the kitchen sink."
           "Michael turned off the faucet of the kitchen sink.")
stop_shared() { "$PY" -c 'from l3mp.llm.shared import stop; stop()' >/dev/null; }

run() {  # mode, call number, sentence
  local start end status
  start=$(date +%s.%N)
  status=0
  L3MP_LLM_SHARED=$([[ $1 == shared ]] && echo 1 || echo 0) "$L3MP" --no-fsync update "$3" >/tmp/l3mp-rt-cli.out 2>&1 || status=$?
  end=$(date +%s.%N)
  printf '%s\t%s\t%.1f\t%s\t%s\t%s\n' "$1" "$2" "$(echo "$end - $start" | bc)" "$status" \
    "$(grep -c '^attempt' /tmp/l3mp-rt-cli.out || true)" "$(grep '^tokens:' /tmp/l3mp-rt-cli.out || true)" >>"$OUT"
}

printf 'mode\tcall\tseconds\texit\tattempts\ttokens\n' >>"$OUT"
stop_shared
for i in 0 1 2 3; do run own "$i" "${SENTENCES[$i]}"; done
for i in 0 1 2 3; do run shared "$i" "${SENTENCES[$i]}"; done  # call 0 starts the shared server
stop_shared
