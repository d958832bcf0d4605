#!/bin/bash
# usage: loop.sh N TAG files...   runs pytest N times, each with its own basetemp, logs kept
N=$1; TAG=$2; shift 2
cd /work/wt/cluster2
for i in $(seq 1 $N); do
  bt=/tmp/cl2/$TAG-$i; rm -rf $bt
  echo "=== run $i $(date -u +%T) load $(cat /proc/loadavg)"
  HOTKV_SLOW_TESTS=1 HOTKV_SERVER=$PWD/build/release/hotkv-server timeout 1500 /usr/bin/python3 -m pytest -q --basetemp=$bt "$@" > /tmp/cl2/$TAG-$i.out 2>&1
  echo "rc=$? $(tail -1 /tmp/cl2/$TAG-$i.out) $(date -u +%T)"
done
