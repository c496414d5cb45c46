"""The ports CPython's suites get from test.support.socket_helper.find_unused_port()
(patched by conftest.py) are ones no other test can take before the suite binds them:
below the kernel's ephemeral range (bind(port 0) and connect never pick them), claimed
against every other process running the same function, and bindable when handed out.
CPython's own find_unused_port fails the first check: it returns an ephemeral port."""
import os
import subprocess
import sys

import pytest

socket_helper = pytest.importorskip("test.support.socket_helper",
                                    reason="CPython's test package is not installed (Debian: libpython3.11-testsuite)")
import conftest  # noqa: E402


def test_suites_see_the_patched_function():
    assert socket_helper.find_unused_port is conftest.find_unused_port


def test_port_below_the_ephemeral_range_and_bindable():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    ports = [socket_helper.find_unused_port() for _ in range(20)]
    assert len(set(ports)) == len(ports), ports
    for p in ports:
        assert 10000 <= p < 20000 <= low, (p, low)
        assert conftest._bindable(p, conftest.socket.AF_INET, conftest.socket.SOCK_STREAM)


def test_claimed_port_not_handed_to_another_process():
    mine = {socket_helper.find_unused_port() for _ in range(50)}
    # Another process asking for many ports never gets one this process holds.
    here = os.path.dirname(os.path.abspath(__file__))
    code = ("import sys; sys.path.insert(0, %r); import conftest; "
            "print(' '.join(str(conftest.find_unused_port()) for _ in range(150)))" % here)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    theirs = {int(x) for x in out.split()}
    assert len(theirs) == 150 and not (mine & theirs), sorted(mine & theirs)
