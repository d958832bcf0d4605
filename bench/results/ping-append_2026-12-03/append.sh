#!/bin/bash
# append.sh hotkv|redis BIN [N]: APPEND appkey:__rand_int__ <256 B> -r 1000000, -P 30 -c 50; server CPU split, page faults, RSS
which=$1; BIN=$2; N=${3:-1000000}
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ $which = hotkv ]; then taskset -c 0 $BIN --port $PORT --threads 1 ${EXTRA:-} >/dev/null 2>&1 & else taskset -c 0 $BIN --port $PORT --save '' --appendonly no >/dev/null 2>&1 & fi
pid=$!
for _ in $(seq 50); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.1; done
VALUE=$(printf 'x%.0s' $(seq 256))
read -r u0 s0 < <(awk '{print $14, $15}' /proc/$pid/stat)
perf stat -e page-faults,minor-faults,major-faults -p $pid -o /tmp/ping/perf-$which.txt &
ppid=$!; sleep 0.5
taskset -c 1 redis-benchmark -p $PORT -c 50 -P 30 -r 1000000 -n $N -q APPEND appkey:__rand_int__ $VALUE >/dev/null 2>&1
read -r u1 s1 < <(awk '{print $14, $15}' /proc/$pid/stat)
kill -INT $ppid; wait $ppid 2>/dev/null
threads=$(for t in /proc/$pid/task/*; do echo -n "$(cat $t/comm | tr -d " "):$(awk "{print \$14\"/\"\$15}" $t/stat) "; done)
rss=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
pf=$(awk '/page-faults/{gsub(",","",$1); print $1; exit}' /tmp/ping/perf-$which.txt)
kill $pid; wait $pid 2>/dev/null
echo "$which $(basename $BIN) N=$N user $(((u1-u0)*10000000/N)) kernel $(((s1-s0)*10000000/N)) total $(((u1-u0+s1-s0)*10000000/N)) ns/op; page-faults $pf ($(echo "scale=3; $pf/$N" | bc)/op); RSS ${rss} kB; threads(u/s ticks) $threads; load $(cut -d' ' -f1 /proc/loadavg)"
