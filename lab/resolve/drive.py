#!/usr/bin/env python3
"""lab/resolve: one measured run of one client program, in namespaces of its own.

Re-executes itself under `unshare -rmnu` (user, mount, network and UTS namespaces: the
machine's network, name servers and /etc are never touched; exit 77 if not permitted),
brings loopback up with 2001:db8::1/64 on it (so the AAAA answers are routable, as the
A answers in 127/8 are), writes a zone of `--names` names (h<i>.bench.test: one A, one
AAAA each), starts dnsmasq on 127.0.0.1:53 serving it, bind-mounts its own resolv.conf
(that server only), nsswitch.conf (`hosts: files dns`) and hosts over /etc's (glibc, libuv
and c-ares read them; vigil too), runs the client and passes its records through, then
stops dnsmasq. The client's CPU is its own (dnsmasq runs as another process)."""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

MARK = "VIGIL_RESOLVE_NS"


def probe():
    q = bytes([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]) + b"\x02h0\x05bench\x04test\x00\x00\x01\x00\x01"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(0.2)
    try:
        s.sendto(q, ("127.0.0.1", 53))
        s.recv(512)
        return True
    except OSError:
        return False
    finally:
        s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--inflight", type=int, required=True)
    ap.add_argument("--names", type=int, required=True)
    a = ap.parse_args()
    if os.environ.get(MARK) != "1":
        if subprocess.run(["unshare", "-rmnu", "true"], stderr=subprocess.DEVNULL).returncode != 0:
            print("skip: unshare -rmnu (user, mount, network namespaces) not permitted", file=sys.stderr)
            sys.exit(77)
        os.execvpe("unshare", ["unshare", "-rmnu", "--", sys.executable, os.path.abspath(__file__)] + sys.argv[1:],
                   dict(os.environ, **{MARK: "1"}))
    dnsmasq = shutil.which("dnsmasq") or "/usr/sbin/dnsmasq"
    if not os.access(dnsmasq, os.X_OK):
        print("skip: dnsmasq not installed (dnsmasq-base, scripts/deps.sh)", file=sys.stderr)
        sys.exit(77)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "-6", "addr", "add", "2001:db8::1/64", "dev", "lo", "nodad"], check=True)
    socket.sethostname("resolve-bench")
    d = tempfile.mkdtemp(prefix="vigil-resolve-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", d], check=True)
    try:
        with open(os.path.join(d, "zone"), "w") as f:
            for i in range(a.names):
                f.write(f"127.{(i >> 16) & 255}.{(i >> 8) & 255}.{(i & 255) or 1} h{i}.bench.test\n")
                f.write(f"2001:db8::{i + 2:x} h{i}.bench.test\n")
        conf = os.path.join(d, "dnsmasq.conf")
        with open(conf, "w") as f:
            f.write("port=53\nlisten-address=127.0.0.1\nbind-interfaces\nno-resolv\nno-hosts\nno-poll\n"
                    f"addn-hosts={d}/zone\nlocal=/test/\nlocal-ttl=60\npid-file=\n"
                    f"log-facility={d}/dnsmasq.log\ncache-size=0\n")
        for name, text in (("resolv.conf", "nameserver 127.0.0.1\noptions timeout:2 attempts:2\n"),
                           ("nsswitch.conf", "hosts: files dns\n"),
                           ("hosts", "127.0.0.1 localhost\n::1 localhost\n")):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            subprocess.run(["mount", "--bind", os.path.join(d, name), "/etc/" + name], check=True)
        if os.path.exists("/etc/gai.conf"):
            open(os.path.join(d, "gai.conf"), "w").close()
            subprocess.run(["mount", "--bind", os.path.join(d, "gai.conf"), "/etc/gai.conf"], check=True)
        # -d: foreground, no change of user or group (refused in a user namespace)
        srv = subprocess.Popen([dnsmasq, "-d", "-C", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                if probe():
                    break
                if srv.poll() is not None:
                    print(f"dnsmasq exited ({srv.returncode})", file=sys.stderr)
                    sys.exit(1)
            else:
                print("dnsmasq did not answer", file=sys.stderr)
                sys.exit(1)
            prog = os.path.join(a.bin, a.prog)
            p = subprocess.run([prog, "--inflight", str(a.inflight), "--names", str(a.names)],
                               stdout=subprocess.PIPE, text=True)
            sys.stdout.write(p.stdout)
            sys.stdout.flush()
            rc = p.returncode
        finally:
            srv.send_signal(signal.SIGTERM)
            try:
                srv.wait(timeout=5)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
    finally:
        subprocess.run(["umount", "-l", d])
        os.rmdir(d)
    sys.exit(rc)


if __name__ == "__main__":
    main()
