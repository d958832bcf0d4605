#!/usr/bin/env bash
# Installs the Debian packages HotKV needs to build, test and benchmark.
# Idempotent: apt runs only when a package is missing.
set -euo pipefail

PACKAGES=(
  # build
  g++ cmake ninja-build make pkg-config
  # the unit tests link with lld (tests/unit/CMakeLists.txt; ld.bfd without it)
  lld
  # libraries linked into hotkv-server
  libmimalloc-dev liburing-dev liblzf-dev libxxhash-dev
  # scripting: Lua 5.1 (the version Redis embeds) and the cjson / bit libraries Redis loads
  liblua5.1-0-dev lua-cjson-dev lua-bitop-dev
  # query engine (FT.*): Snowball stemmers
  libstemmer-dev libicu-dev
  # unit tests and micro-benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # integration tests (Debian's redis-py and pytest) and the reference peer
  python3 python3-redis python3-pytest redis-server redis-tools
  # npm-client tests (tests/node; the machine's Node.js 20 ships npm)
  nodejs
  # benchmarks: reference HNSW, dataset, charts
  libhnswlib-dev dataset-fashion-mnist gnuplot-nox
  # bench/ft_vector.py: exact neighbours (cosine) for recall@10
  python3-numpy
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian's redis-server package starts a service on 6379; HotKV's tests do not use it,
# and it must not hold the default port.
if command -v systemctl >/dev/null 2>&1; then
  $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
