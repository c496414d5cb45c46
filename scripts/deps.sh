#!/usr/bin/env bash
# Installs the Debian packages vigil's build, tests and lab need, only those missing.
# Usage: scripts/deps.sh [test|lab|package]   (test: build + test deps; lab: everything;
#   package: what `make package` needs on top of test: dpkg-buildpackage and its helpers, lintian)
set -eu
# abigail-tools: abidw/abidiff for the ABI check (scripts/abi.sh); clang-14 +
# libclang-rt-14-dev (the sanitizer and libFuzzer runtimes, only a Recommends of
# clang-14): make test's clang tree (make test-clang) and fuzz build (scripts/fuzz.sh). mandoc: the manual's lint test and make man-html.
# python3-venv + python3-dev + libpython3.11-testsuite: the asyncio loop's tests (python/: a
# venv of /usr/bin/python3 builds the extension and runs CPython's own test_events mixins
# from the testsuite package).
# dnsmasq-base: the real DNS server the resolver's tests (tests/dns) and lab/resolve start
# on loopback in their own namespaces (the binary only: no service, nothing started).
# libssl-dev + openssl: OpenSSL 3, which libvigil's TLS (src/tls) is built on, and the
# openssl tool its tests (tests/tls) make certificates with and run s_server/s_client as peers.
# libcurl4-openssl-dev: examples/curl_multi.c and its test (libcurl's multi socket interface
# on the loop's io/timer watchers and a check hook; tests/examples/curl_multi.py).
want=(cmake make gcc g++ pkg-config liburing-dev libuv1-dev libev-dev libevent-dev libboost-dev
      abigail-tools clang-14 libclang-rt-14-dev mandoc python3-venv python3-dev libpython3.11-testsuite
      dnsmasq-base libcurl4-openssl-dev libssl-dev openssl curl)
[ "${1:-test}" = lab ] && want+=(python3 python3-matplotlib fio strace linux-perf
      libaio-dev wrk nginx-light libc-ares-dev)  # libc-ares-dev: lab/resolve's c-ares peer; libaio-dev: the lab's libaio peer (lab/file-batch/fb_libaio.c); libvigil itself makes raw aio system calls
# wrk and nginx-light: lab/http-hello (wrk drives vigil's examples/http_hello and nginx)
# (libssl-dev and openssl, in `want` above, also serve lab/https-hello's hs_client.c and lab/py-tls-echo's client.)
# linux-perf: the echo benchmarks' system call counts (`perf trace`; strace where perf cannot trace)
# package: debian/control's Build-Depends (debhelper, cmake, pkg-config, liburing-dev) plus
# the tools around dpkg-buildpackage; man-db for the unpacked packages' check (man -l).
[ "${1:-test}" = package ] && want+=(dpkg-dev debhelper fakeroot lintian man-db)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "vigil: installing missing packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "vigil: not root; install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
