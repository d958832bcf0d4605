#!/bin/bash
# first vs later CLUSTER GETKEYSINSLOT on a slot holding N keys (one hash tag), one node
BIN=$1; N=$2
D=$(mktemp -d)
P=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$BIN --port $P --threads 1 --save '' --appendonly no --enable-debug-command yes --dir $D --cluster-enabled yes --cluster-config-file $D/n.conf --cluster-port $((P+1 > 65535 ? P-1 : P+1)) > $D/log 2>&1 &
SP=$!
for i in $(seq 300); do redis-cli -p $P ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p $P cluster addslotsrange 0 16383 >/dev/null
for i in $(seq 300); do redis-cli -p $P cluster info | grep -q cluster_state:ok && break; sleep 0.1; done
redis-benchmark -p $P -c 20 -P 100 -n $N -r 1000000000 -q SET "{big}:__rand_int__" v > /dev/null
S=$(redis-cli -p $P cluster keyslot "{big}")
echo "N=$N dbsize=$(redis-cli -p $P dbsize) countkeysinslot=$(redis-cli -p $P cluster countkeysinslot $S) load=$(cut -d' ' -f1 /proc/loadavg)"
/usr/bin/python3 - $P $S <<'EOF'
import sys,time,redis
r=redis.Redis(port=int(sys.argv[1]))
for i in range(4):
    t=time.time(); k=r.execute_command("CLUSTER","GETKEYSINSLOT",int(sys.argv[2]),10)
    print(f"call {i+1}: {len(k)} keys {(time.time()-t)*1000:.1f} ms")
EOF
kill $SP; wait $SP 2>/dev/null; tail -5 $D/log; rm -rf $D
