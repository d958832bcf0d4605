#!/bin/bash
# pingcpu.sh BIN [N] [CMD...]: server CPU ns per request (user kernel total) and rps, PING at -P 30 -c 50
BIN=$1; N=${2:-3000000}; shift 2; WHAT=("$@"); [ ${#WHAT[@]} -gt 0 ] || WHAT=(-t ping_mbulk)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
taskset -c 0 $BIN --port $PORT --threads 1 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.1; done
read -r u0 s0 < <(awk '{print $14, $15}' /proc/$pid/stat)
rps=$(taskset -c 1 redis-benchmark -p $PORT -c 50 -P 30 -n $N -q "${WHAT[@]}" 2>/dev/null | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1)
read -r u1 s1 < <(awk '{print $14, $15}' /proc/$pid/stat)
kill $pid; wait $pid 2>/dev/null
echo "$(basename $BIN) user $(((u1-u0)*10000000/N)) kernel $(((s1-s0)*10000000/N)) total $(((u1-u0+s1-s0)*10000000/N)) rps $rps load $(cut -d' ' -f1 /proc/loadavg)"
