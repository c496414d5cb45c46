# Front for CMake. The two commands: `make lab` and `make test`.
#   make test            sanitizer build (-Werror, ASan, UBSan) and every test via ctest, then
#                        the bounded libFuzzer run (scripts/fuzz.sh: clang build in $(BUILD)/fuzz)
#   make test-tsan       (part of make test) ThreadSanitizer build, the threaded tests
#   make test-clang      (part of make test) the same sanitizer build with clang-14, its tests
#   make lab [BENCH=name] [QUICK=1]   release build, benchmarks, tables, report in build/lab/
#   make install [PREFIX=/usr/local]
#   make man-html        the manual as HTML, from man/pages/, into $(BUILD)/man-html (not committed)
#   make package         the Debian packages (debian/) from a clean copy of the tree, into
#                        $(BUILD)/package: dpkg-buildpackage, lintian, then the unpacked .debs
#                        build and run the README's first program (scripts/package.sh)
#   make wheel           the Python package's sdist and manylinux wheel (python -m build,
#                        auditwheel repair, twine check) into $(BUILD)/python/dist (python/scripts/wheel.sh)
#   make test-anyio      anyio's own test suite (asyncio backend, pinned sdist from PyPI) on the
#                        default loop and on vigil's on each backend, the differences listed
#                        (python/scripts/anyio_suite.py; not part of make test: see its docstring)
#   make abi-baseline    rewrite abi/libvigil.abi on purpose (after a version bump; see scripts/abi.sh)
#   make abi-check       the ABI check alone (make test runs it as the ctest test abi_check)
# BUILD=dir puts the build trees elsewhere (parallel work in one checkout).
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc)
PYTHON  := /usr/bin/python3
CTEST_ARGS ?=
CMAKE_ARGS ?=

.PHONY: all lib test lab install package clean deps-test deps-lab deps-package abi-check abi-baseline man-html \
        wheel test-anyio

all: lib

deps-test:
	@bash scripts/deps.sh test
deps-lab:
	@bash scripts/deps.sh lab
deps-package:
	@bash scripts/deps.sh package

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

abi-check: deps-test
	@bash scripts/abi.sh check $(abspath $(BUILD))/abi
abi-baseline: deps-test
	@bash scripts/abi.sh baseline $(abspath $(BUILD))/abi

install: lib
	@cmake --install $(BUILD)/rel --prefix $(PREFIX)

man-html: deps-test
	@bash scripts/man-html.sh $(abspath $(BUILD))/man-html
package: deps-package
	@bash scripts/package.sh $(BUILD)/package
wheel: deps-test
	@bash python/scripts/wheel.sh $(abspath $(BUILD))
test-anyio: deps-test
	@$(PYTHON) python/scripts/anyio_suite.py --build $(abspath $(BUILD))

# ThreadSanitizer: a build of its own ($(BUILD)/tsan: TSan and ASan cannot share a
# process) running the tests labelled "threads" (vigil_test THREADS). A report fails
# its test (TSAN_OPTIONS set by tests/CMakeLists.txt); there is no suppression file.
.PHONY: test-tsan
test: test-tsan
test-tsan: deps-test
	@cmake -S . -B $(BUILD)/tsan -DCMAKE_BUILD_TYPE=Debug -DVIGIL_TSAN=ON -DVIGIL_WERROR=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD)/tsan -j $(JOBS) -- --no-print-directory
	@echo "ThreadSanitizer: the threaded tests (ctest -L threads in $(BUILD)/tsan)"
	@cd $(BUILD)/tsan && { ctest --output-on-failure -j $(JOBS) -L threads $(CTEST_ARGS); echo $$? > ctest.rc; } | tee ctest.out; rc=$$(cat ctest.rc); \
	  grep -E '^[0-9]+% tests passed' ctest.out | sed 's/^/ThreadSanitizer: /' > ctest-summary.txt; \
	  bash $(CURDIR)/scripts/test-skips.sh . ; exit $$rc

# clang: the tree must build and pass with gcc and clang, so a second sanitizer build
# ($(BUILD)/clang: clang-14, -Werror, ASan+UBSan) runs the tests whose outcome depends on
# the compiler: all but the label python (pip builds the extension with the system
# compiler, outside any build tree, so they would repeat the gcc tree's run) and
# abi_check (it builds a tree of its own, with the default compiler).
CLANG ?= clang-14
.PHONY: test-clang
test: test-clang
test-clang: deps-test
	@cmake -S . -B $(BUILD)/clang -DCMAKE_C_COMPILER=$(CLANG) -DCMAKE_BUILD_TYPE=Debug -DVIGIL_SANITIZE=ON -DVIGIL_WERROR=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD)/clang -j $(JOBS) -- --no-print-directory
	@echo "clang: the tests but the compiler-independent ones (ctest -LE python -E abi_check in $(BUILD)/clang)"
	@cd $(BUILD)/clang && { ctest --output-on-failure -j $(JOBS) -LE python -E '^abi_check$$' $(CTEST_ARGS); echo $$? > ctest.rc; } | tee ctest.out; rc=$$(cat ctest.rc); \
	  grep -E '^[0-9]+% tests passed' ctest.out | sed 's/^/clang: /' > ctest-summary.txt; \
	  bash $(CURDIR)/scripts/test-skips.sh . ; exit $$rc

clean:
	rm -rf $(BUILD)
