#!/usr/bin/env python3
"""The TCP port a process listens on, for tests that start a server on port 0 (the
kernel picks a free port and no other test can take it first, unlike a port found free
and closed again). Read from /proc: the process's socket inodes (/proc/PID/fd) matched
with the listening sockets of /proc/PID/net/tcp and tcp6.

    listen_port.py PID [TIMEOUT_S]   prints the port once PID listens; exit 1 if it
                                     exits or does not listen in time
As a module: port = listen_port.wait(pid, timeout_s)."""
import os
import sys
import time

LISTEN = "0A"


def listening(pid):
    """The ports of the TCP sockets pid holds in the LISTEN state."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{table}") as f:
                next(f)
                for line in f:
                    col = line.split()
                    if col[3] == LISTEN and col[9] in inodes:
                        ports.add(int(col[1].rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return ports


def wait(pid, timeout_s=10.0):
    """The port pid listens on (the lowest if several), once it listens."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            ports = listening(pid)
        except OSError:  # the process is gone
            raise RuntimeError(f"process {pid} exited before it listened")
        if ports:
            return min(ports)
        time.sleep(0.02)
    raise RuntimeError(f"process {pid} did not listen within {timeout_s} s")


if __name__ == "__main__":
    try:
        print(wait(int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 10.0))
    except RuntimeError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
