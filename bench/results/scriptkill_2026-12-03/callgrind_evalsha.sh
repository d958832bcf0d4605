#!/bin/bash
# usage: run.sh name port server-cmd...
name=$1; port=$2; shift 2
rm -f cg.$name.*
valgrind --tool=callgrind --callgrind-out-file=cg.$name.%p "$@" > srv.$name.log 2>&1 &
VP=$!
for i in $(seq 1 200); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.5; done
SMALL="local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n"
SHA=$(redis-cli -p $port script load "$SMALL")
redis-benchmark -p $port -n 3000 -c 1 -P 30 -r 100000 -q evalsha $SHA 1 key:__rand_int__ 60 > /dev/null
callgrind_control -z $VP > /dev/null
redis-benchmark -p $port -n 30000 -c 1 -P 30 -r 100000 -q evalsha $SHA 1 key:__rand_int__ 60 > bench.$name.txt 2>&1
callgrind_control -d $VP > /dev/null
sleep 1
redis-cli -p $port shutdown nosave > /dev/null 2>&1
wait $VP
ls cg.$name.*
