# Front for CMake. The two commands: `make lab` and `make test`.
#   make test            sanitizer build (-Werror, ASan, UBSan) and every test via ctest, then
#                        the bounded libFuzzer run (scripts/fuzz.sh: clang build in $(BUILD)/fuzz)
#   make lab [BENCH=name] [QUICK=1]   release build, benchmarks, tables, report in build/lab/
#   make install [PREFIX=/usr/local]
# BUILD=dir puts the build trees elsewhere (parallel work in one checkout).
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc)
PYTHON  := /usr/bin/python3
CTEST_ARGS ?=
CMAKE_ARGS ?=

.PHONY: all lib test lab install clean deps-test deps-lab

all: lib

deps-test:
	@bash scripts/deps.sh test
deps-lab:
	@bash scripts/deps.sh lab

lib: deps-test
	@cmake -S . -B $(BUILD)/rel -DCMAKE_BUILD_TYPE=Release -DVIGIL_LAB=OFF >/dev/null
	@cmake --build $(BUILD)/rel -j $(JOBS) -- --no-print-directory

test: deps-test
	@cmake -S . -B $(BUILD)/test -DCMAKE_BUILD_TYPE=Debug -DVIGIL_SANITIZE=ON -DVIGIL_WERROR=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD)/test -j $(JOBS) -- --no-print-directory
	@cd $(BUILD)/test && { ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS); echo $$? > ctest.rc; } | tee ctest.out; rc=$$(cat ctest.rc); \
	  grep -E '^[0-9]+% tests passed' ctest.out > ctest-summary.txt; \
	  bash $(CURDIR)/scripts/fuzz.sh $(abspath $(BUILD)) || rc=1; \
	  bash $(CURDIR)/scripts/test-skips.sh . ; exit $$rc

lab: deps-lab
	@cmake -S . -B $(BUILD)/rel -DCMAKE_BUILD_TYPE=Release -DVIGIL_LAB=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD)/rel -j $(JOBS) -- --no-print-directory
	@$(PYTHON) lab/run.py --bin $(BUILD)/rel/lab --out $(BUILD)/lab $(if $(BENCH),--bench $(BENCH)) $(if $(filter-out 0,$(QUICK)),--quick)

install: lib
	@cmake --install $(BUILD)/rel --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
