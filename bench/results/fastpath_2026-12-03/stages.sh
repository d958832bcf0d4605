#!/bin/bash
# stages.sh FILE N -> Ir/request by stage (HotKV callgrind file with symbols)
f=$1; n=$2
callgrind_annotate --inclusive=yes --threshold=100 $f 2>/dev/null > /tmp/fp/st.$$
get() { grep -E "$1" /tmp/fp/st.$$ | head -1 | awk '{gsub(",","",$1); print $1+0}'; }
tot=$(grep "PROGRAM TOTALS" /tmp/fp/st.$$ | awk '{gsub(",","",$1); print $1}')
cron=$(get "Worker::Cron\(long\)")
pin=$(get "Worker::ProcessInput\(hotkv::Connection\*\)")
parse=$(get "RequestParser::Parse\(")
find=$(get "CommandTable::Find\(")
disp=$(get "hotkv::Dispatch\(hotkv::Worker&, hotkv::Client&")
pf=$(get "Worker::PrefetchBatch")
hand=$(grep -E "::[A-Za-z]+Command\(hotkv::CommandContext&\) \[" /tmp/fp/st.$$ | head -1 | awk '{gsub(",","",$1); print $1+0}')
keyslot=$(get "hotkv::KeySlot\(")
lookup=$(get "Database::Lookup\(std::basic_string_view<char, std::char_traits<char> >, unsigned int")
reply=$(grep -E "ReplyBuilder::[A-Za-z]+\(" /tmp/fp/st.$$ | awk '{gsub(",","",$1); s+=$1} END {print s+0}')
p() { echo "scale=0; ${1:-0} / $n" | bc; }
echo "total-cron $(p $((tot - cron))) | io-loop $(p $((tot - cron - pin))) | parse $(p $parse) | cmd-lookup $(p $find) | prefetch $(p ${pf:-0}) | dispatch-overhead $(p $((disp - hand - find))) | handler $(p $hand) [of which key-slot $(p ${keyslot:-0}) table-lookup $(p ${lookup:-0}) reply $(p $reply)] | cron $(p $cron)"
rm -f /tmp/fp/st.$$
