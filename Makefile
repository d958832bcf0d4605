# HotKV — `make run` and `make test` do every set-up step on a fresh Debian 12 machine.
SHELL := /bin/bash
BUILD_DIR ?= build/release
ASAN_DIR ?= build/asan
JOBS ?= $(shell nproc)
ARGS ?=
PYTEST ?= /usr/bin/python3 -m pytest
BENCH_ARGS ?=

.PHONY: all deps build build-server build-asan run test unit-test asan-test integration-test cluster-test node-test bench clean format

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOTKV_BUILD_BENCH=OFF

build: deps $(BUILD_DIR)/build.ninja
	ninja -C $(BUILD_DIR) -j $(JOBS)

# The server and its tools (hotkv-check-aof, hotkv-rdbtool, hotkv-loadgen) without the
# unit tests: what `make run` and the integration and npm-client suites need.
build-server: deps $(BUILD_DIR)/build.ninja
	ninja -C $(BUILD_DIR) -j $(JOBS) hotkv-server tools/all

# Unit tests only, under AddressSanitizer + UBSan: -O1 with line tables keeps the build
# quick and the reports readable (file and line in stack traces).
$(ASAN_DIR)/build.ninja:
	cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Asan \
	  -DCMAKE_CXX_FLAGS_ASAN="-O1 -g1" \
	  -DHOTKV_SANITIZE=ON -DHOTKV_BUILD_SERVER=OFF -DHOTKV_BUILD_BENCH=OFF

build-asan: deps $(ASAN_DIR)/build.ninja
	ninja -C $(ASAN_DIR) -j $(JOBS) unit_tests

run: build-server
	exec $(BUILD_DIR)/hotkv-server $(ARGS)

unit-test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

asan-test: build-asan
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

integration-test: build-server
	HOTKV_SERVER=$(CURDIR)/$(BUILD_DIR)/hotkv-server $(PYTEST) -q tests/integration

# The whole cluster suite with its slow cases (HOTKV_SLOW_TESTS=1): the live migration of
# a Redis 7.0 cluster onto HotKV, mixed HotKV / Redis 7.0 failure tests and 5-node
# partitions in network namespaces (test_cluster_failure.py; needs root for `ip netns`,
# skipped otherwise). `make integration-test` runs the same files without them.
cluster-test: build-server
	HOTKV_SLOW_TESTS=1 HOTKV_SERVER=$(CURDIR)/$(BUILD_DIR)/hotkv-server $(PYTEST) -q tests/integration/test_cluster_*.py

# Real npm clients (ioredis, node-redis, redis-om, LangChain/LangGraph's Redis stores), versions pinned by
# tests/node/package-lock.json; `npm ci` reinstalls them when the lock file changes.
NODE_DIR := tests/node
$(NODE_DIR)/node_modules/.installed: $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund
	touch $@

node-test: build-server $(NODE_DIR)/node_modules/.installed
	cd $(NODE_DIR) && HOTKV_SERVER=$(CURDIR)/$(BUILD_DIR)/hotkv-server node --test --test-concurrency=1

# The unit tests run once, under ASan/UBSan (`make unit-test` runs them in the release
# build too); compiling them a second time at -O2 cost CI about 3.5 minutes.
# The integration suite spends most of its ~6 minutes waiting (servers starting, replies,
# timeouts: ~0.5 of one core on average), so it runs in the background, against the
# release server built first, while the ASan tree builds and its unit tests run; its
# output goes to build/integration.log and is printed when it ends.
# `npm ci` (network-bound, ~10 s of CPU in up to a minute) runs in the background too;
# node-test then finds the packages installed (or, if that install failed, runs it again
# in the foreground and shows why).
test:
	@mkdir -p build
	@$(MAKE) --no-print-directory $(NODE_DIR)/node_modules/.installed > build/npm-ci.log 2>&1 & \
	  npm_pid=$$!; \
	  $(MAKE) --no-print-directory build-server || exit $$?; \
	  echo "make test: integration tests running in the background (build/integration.log)"; \
	  $(MAKE) --no-print-directory integration-test > build/integration.log 2>&1 & \
	  it_pid=$$!; \
	  $(MAKE) --no-print-directory asan-test; asan_rc=$$?; \
	  wait $$it_pid; it_rc=$$?; \
	  echo "---- integration tests (build/integration.log) ----"; cat build/integration.log; \
	  wait $$npm_pid || true; \
	  if [ $$asan_rc -ne 0 ]; then echo "make test: ASan unit tests failed"; exit $$asan_rc; fi; \
	  if [ $$it_rc -ne 0 ]; then echo "make test: integration tests failed"; exit $$it_rc; fi; \
	  $(MAKE) --no-print-directory node-test

bench: build
	bench/run.sh $(BENCH_ARGS)

format:
	find src tests tools bench -name '*.cc' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf build
