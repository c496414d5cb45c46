#!/usr/bin/env bash
# Starts the echo example on a free loopback port (port 0), sends lines over TCP, expects them
# back, then stops it with SIGINT (its signal watcher ends the loop: exit status 0).
set -u
bin=$1
# Port 0: the kernel picks a free port (no other test can take it first), read back from
# /proc once the server listens (tests/common/listen_port.py).
trap 'kill -9 $pid 2>/dev/null; rm -f /tmp/vigil-echo-$$.log' EXIT
"$bin" 0 > /tmp/vigil-echo-$$.log 2>&1 &
pid=$!
port=$(/usr/bin/python3 "$(dirname "$0")/../common/listen_port.py" $pid 10) ||
  { echo "server did not start"; cat /tmp/vigil-echo-$$.log; exit 1; }
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
