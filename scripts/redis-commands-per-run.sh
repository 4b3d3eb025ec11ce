#!/usr/bin/env bash
# Redis commands per run, by command, on a running stack (./agentrun local): issue 42's method.
#   scripts/redis-commands-per-run.sh [NEW_THREADS] [CONTINUED_TURNS]     (defaults 200 and 100)
# Streams NEW_THREADS runs of the scripted `assistant` agent on new threads, then CONTINUED_TURNS more turns on the first
# of them (a thread takes one run at a time, so turns are sequential), one run after the other; INFO commandstats is
# reset before and read after, so sweeps, lease renewals and index repairs during the runs count too. Redis counts a
# script's own redis.call()s in commandstats: a script call counts as itself plus what it ran.
# Reads the stack's Redis from .agentrun/endpoints.env; the key from AGENTRUN_API_KEY (AGENTRUN_URL, AGENTRUN_PROJECT to override).
set -euo pipefail
cd "$(dirname "$0")/.."
new_threads=${1:-200}
turns=${2:-100}
api=${AGENTRUN_URL:-http://localhost:8080}
project=${AGENTRUN_PROJECT:-demo}
redis_url=$(sed -n 's/^REDIS_URL=//p' .agentrun/endpoints.env 2>/dev/null || true)
[ -n "$redis_url" ] || { echo "no .agentrun/endpoints.env: start ./agentrun local first" >&2; exit 1; }
key=${AGENTRUN_API_KEY:-}
[ -n "$key" ] || { echo "no API key: set AGENTRUN_API_KEY to the secret key ./agentrun local printed" >&2; exit 1; }

# One streamed run; prints the thread id from its run_start. The key goes to curl on stdin, never on a command line.
stream() {
  local query=$1 thread=${2:-}
  printf 'header = "x-api-key: %s"\n' "$key" | curl -sS -N --config - -H "x-project-id: $project" \
      -H 'content-type: application/json' --data "{\"query\":\"$query\"}" \
      "$api/api/v1/agents/assistant/stream/threads${thread:+?thread_id=$thread}" |
    sed -n 's/.*"thread_id":"\([^"]*\)".*/\1/p' | head -n 1
}

redis-cli -u "$redis_url" config resetstat >/dev/null
first=""
for i in $(seq 1 "$new_threads"); do
  t=$(stream "hello $i")
  [ -n "$first" ] || first=$t
done
for i in $(seq 1 "$turns"); do
  stream "turn $i" "$first" >/dev/null
done
runs=$((new_threads + turns))
redis-cli -u "$redis_url" info commandstats | tr -d '\r' |
  sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),.*/\1 \2/p' | grep -v '^info ' | sort -k2 -n -r |
  awk -v runs="$runs" '{ total += $2; line = line sprintf("%s %.1f, ", $1, $2 / runs) }
    END { printf "redis commands per run: %.1f over %d runs (%s)\n", total / runs, runs, substr(line, 1, length(line) - 2) }'
