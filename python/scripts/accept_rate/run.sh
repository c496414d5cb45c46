#!/usr/bin/env bash
# Accept rate of an asyncio echo server (create_server + a Protocol that echoes), not a
# lab benchmark: how issue 30's accept path was measured against uvloop by hand.
#   run.sh <python> <loop> <seconds> <clients>
#   loop: uvloop | asyncio | vigil:<backend> | vigilpy:<backend> (vigil's loop with the
#   old Python readiness accept path, for comparison)
# The server (server.py) runs pinned to CPU 0, the client (client.c: <clients>
# processes, each connect, 1 byte echoed, close, in a loop) on CPU 1. Prints the
# connections/s and the server's CPU time per connection (from after its listen).
# Example: python=build/pyvenv/bin/python (lab/common/pyvenv.sh makes one with uvloop)
#   for r in 1 2 3; do for l in uvloop vigil:uring; do run.sh $python $l 3 16; done; done
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
client="${TMPDIR:-/tmp}/vigil_accept_client"
[ -x "$client" ] && [ "$client" -nt "$here/client.c" ] || cc -O2 -o "$client" "$here/client.c"
coproc S { taskset -c 0 "$1" -P "$here/server.py" "$2"; }
read -r -u "${S[0]}" port
res=$(taskset -c 1 "$client" "$port" "$3" "$4")
echo >&"${S[1]}"
read -r -u "${S[0]}" cpu
wait
rate=${res% *}
echo "$2 clients=$4 rate=$rate errs=${res#* } us_cpu_per_conn=$(python3 -c "print(round($cpu/($rate*$3)*1e6,1))")"
