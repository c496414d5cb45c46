#!/usr/bin/env bash
# Starts the echo example on a free loopback port, sends lines over TCP, expects them
# back, then stops it with SIGINT (its signal watcher ends the loop: exit status 0).
set -u
bin=$1
# Ports below the kernel's ephemeral range (32768 up here), so the connections other tests
# make at the same time (net_fuzz makes thousands) never hold ours; a port another test
# picked is tried again with a new one. 20000-31999: python/tests/conftest.py hands out
# 10000-19999 to CPython's suites.
pid=
trap 'kill -9 $pid 2>/dev/null; rm -f /tmp/vigil-echo-$$.log' EXIT
for _ in 1 2 3 4 5; do
  port=$(( 20000 + RANDOM % 12000 ))
  "$bin" "$port" > /tmp/vigil-echo-$$.log 2>&1 &
  pid=$!
  for _ in $(seq 50); do grep -q "echo on\|Address already in use" /tmp/vigil-echo-$$.log && break; sleep 0.1; done
  grep -q "Address already in use" /tmp/vigil-echo-$$.log || break
  wait $pid 2>/dev/null
done
grep -q "echo on" /tmp/vigil-echo-$$.log || { echo "server did not start"; cat /tmp/vigil-echo-$$.log; exit 1; }
for i in 1 2 3; do
  exec 3<>/dev/tcp/127.0.0.1/$port || { echo "connect failed"; exit 1; }
  printf 'hello %s\n' "$i" >&3
  read -r -t 5 line <&3 || { echo "no echo"; exit 1; }
  [ "$line" = "hello $i" ] || { echo "got '$line'"; exit 1; }
  exec 3>&-
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || { echo "server exit status $rc"; exit 1; }
echo "echo example: 3 connections echoed, stopped by SIGINT"
