#!/bin/bash
# examples/run.c as a user runs it: a command's stdout and stderr arrive, each line
# stamped, and run exits with the command's status; a command that does not exist is
# the start's error (exit 127 from run itself, with the reason), not a child's.
set -u
run=$1
out=$("$run" sh -c 'echo hello; echo oops >&2; exit 3')
rc=$?
[ "$rc" = 3 ] || { echo "exit status $rc, want 3"; exit 1; }
echo "$out" | grep -Eq '^\[ *[0-9]+\.[0-9]{3}\] hello$' || { echo "no stamped hello in: $out"; exit 1; }
echo "$out" | grep -Eq '^\[ *[0-9]+\.[0-9]{3}\] oops$' || { echo "no stamped stderr line in: $out"; exit 1; }
err=$("$run" no-such-command-vigil 2>&1)
rc=$?
[ "$rc" = 127 ] || { echo "missing command: exit $rc, want 127"; exit 1; }
echo "$err" | grep -q "No such file or directory" || { echo "missing command: $err"; exit 1; }
out=$("$run" sh -c 'kill -TERM $$' 2>&1)
rc=$?
[ "$rc" = 143 ] || { echo "killed command: exit $rc, want 143"; exit 1; }
echo ok
