#!/bin/bash
# variants.sh: builds hotkv-after (HEAD) and hotkv-bulk (HEAD with the prefetch distances at 16: the old whole-window prefetch)
set -e
cd /work/wt/cpu
export CCACHE_DIR=/work/.ccache CCACHE_BASEDIR=/work CCACHE_NOHASHDIR=1
ninja -C build/release -j 2 hotkv-server
cp build/release/hotkv-server /tmp/cpu/hotkv-after
sed -i 's/^constexpr size_t kSlotAhead = .*/constexpr size_t kSlotAhead = 16;/; s/^constexpr size_t kEntryAhead = .*/constexpr size_t kEntryAhead = 16;/' src/server/worker_input.cc
sed -i 's/^constexpr size_t kKeySlotAhead = .*/constexpr size_t kKeySlotAhead = 16;/; s/^constexpr size_t kKeyEntryAhead = .*/constexpr size_t kKeyEntryAhead = 16;/' src/commands/string_family.cc
ninja -C build/release -j 2 hotkv-server
cp build/release/hotkv-server /tmp/cpu/hotkv-bulk
git checkout src/server/worker_input.cc src/commands/string_family.cc
ninja -C build/release -j 2 hotkv-server
cmp build/release/hotkv-server /tmp/cpu/hotkv-after && echo same
