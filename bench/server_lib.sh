# Sourced by the single-server bench scripts (cpu_split, preloaded_cpu, write_latency,
# memory_return): start one server pinned to core 0 on a free port of 127.0.0.1 and stop
# it when the script exits.
#
#   BIN=build/release/hotkv-server   # the HotKV binary (the default)
#   start_server hotkv|redis|redis8 [server options...]   # sets PORT and PID
#
# HotKV runs with --threads 1, Redis with persistence off; both wait until they answer.
# redis = Debian's redis-server (7.0); redis8 = Redis 8.8 from HOTKV_BENCH_REDIS8, else
# ../shared/peers/redis-8.8/redis-server beside the checkout or its parent (exits 2 with
# a message when there is none: the other servers never need it).

redis8_binary() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  for cand in "${HOTKV_BENCH_REDIS8:-}" "$root/../shared/peers/redis-8.8/redis-server" \
              "$root/../../shared/peers/redis-8.8/redis-server"; do
    if [ -n "$cand" ] && [ -x "$cand" ]; then
      echo "$cand"
      return 0
    fi
  done
  return 1
}

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start_server() {
  local which=$1
  shift
  PORT=$(free_port)
  if [ "$which" = hotkv ]; then
    taskset -c 0 "${BIN:-build/release/hotkv-server}" --port "$PORT" --threads 1 "$@" >/dev/null 2>&1 &
  elif [ "$which" = redis8 ]; then
    local r8
    r8=$(redis8_binary) || { echo "bench: Redis 8.8 not found (set HOTKV_BENCH_REDIS8)" >&2; exit 2; }
    taskset -c 0 "$r8" --port "$PORT" --save '' --appendonly no "$@" >/dev/null 2>&1 &
  else
    taskset -c 0 redis-server --port "$PORT" --save '' --appendonly no "$@" >/dev/null 2>&1 &
  fi
  PID=$!
  trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT
  for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
}
