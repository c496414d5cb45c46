"""lab/https-hello's handshake client taking turns between servers (hs_client --port A
--port B): each port's handshakes, failures and time are its own. One port is
examples/https_hello, the other has nothing listening: every connection to it fails, so
a handshake counted for it, or a failure for the live one, would be one that crossed
from the other's turn; each port's seconds cover its own turns (S each, then the
drain). With --resume, two turns of the same server both resume. And bench.py's plan:
the handshake runs are one step a round naming both servers, the first named rotating.

    hs_turns.py SOURCE_DIR HS_CLIENT HTTPS_HELLO"""
import os, shutil, socket, subprocess, sys, tempfile

src, hs, https_hello = sys.argv[1:4]
sys.path.insert(0, os.path.join(src, "tests", "lab"))
sys.path.insert(0, os.path.join(src, "tests", "examples"))
from labcheck import check, finish  # noqa: E402
from exampletest import Server  # noqa: E402

if not shutil.which("openssl"):
    print("skip: needs the openssl tool")
    sys.exit(77)


def run(*args):
    p = subprocess.run([hs, "--conns", "4", *map(str, args)], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"hs_client {' '.join(map(str, args))} exits 0 ({p.stderr.strip()[-200:]})")
    return [dict(kv.split("=", 1) for kv in ln.split()[1:]) for ln in p.stdout.splitlines()
            if ln.startswith("hs_client ")]


tmp = tempfile.mkdtemp(prefix="vigil-hs-turns-")
try:
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost"], check=True,
                   capture_output=True)
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    srv = Server(https_hello, "--cert", cert, "--key", key)
    try:
        secs = 0.6
        out = run("--port", srv.port, "--port", dead, "--seconds", secs, "--slice", 0.2, "--warmup", 0.1)
        check(len(out) == 2 and out[0]["port"] == str(srv.port) and out[1]["port"] == str(dead),
              f"one line per port, in the order given: {out}")
        if len(out) != 2:
            finish("")
        live, gone = out[0], out[1]
        check(int(live["handshakes"]) > 0 and int(live["errors"]) == 0,
              f"the live server: handshakes, no failure ({live})")
        check(live["version"] == "TLSv1.3", f"the live server's handshakes are TLS 1.3 ({live['version']})")
        check(int(gone["handshakes"]) == 0 and int(gone["errors"]) > 0 and gone["cipher"] == "none",
              f"the port without a server: failures only ({gone})")
        for f in out:
            t = float(f["seconds"])
            check(secs <= t < secs + 5, f"port {f['port']}: its turns last {secs} s and their drains ({t:.3f} s)")
            check(0 <= float(f["cpu"]) <= t + 0.05, f"port {f['port']}: the client's CPU over its turns ({f['cpu']})")
        res = run("--port", srv.port, "--port", srv.port, "--seconds", 0.4, "--slice", 0.2, "--resume")
        check(len(res) == 2 and all(int(f["handshakes"]) > 0 and f["resumed"] == f["handshakes"] for f in res),
              f"--resume: every handshake of either turn resumed ({res})")
    finally:
        srv.proc.send_signal(2)
        srv.proc.wait(timeout=10)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.path.insert(0, os.path.join(src, "lab", "https-hello"))
sys.path.insert(0, os.path.join(src, "lab", "common"))
import bench  # noqa: E402


class Ctx:
    bin, tmp, quick = "/nonexistent/lab", "/nonexistent/tmp", False


steps = bench.plan(Ctx())
hs_steps = [s for s in steps if s["cmd"][s["cmd"].index("--mode") + 1] != "wrk"]
firsts = [s["cmd"][s["cmd"].index("--system") + 1] for s in hs_steps
          if s["cmd"][s["cmd"].index("--mode") + 1] == "full"]
check(all(sorted(s["cmd"][s["cmd"].index("--system") + 1].split(",")) == ["nginx", "vigil"] for s in hs_steps),
      "every handshake step names both servers")
check(len(firsts) == 4 and firsts[0] != firsts[1] and firsts[0] == firsts[2] and firsts[1] == firsts[3],
      f"one full-handshake step a round, the first server rotating ({firsts})")
check(sum(float(s["est_s"]) for s in steps) <= bench.BUDGET_S, "the plan's estimate within the budget")
finish("hs_turns: ok")
