#!/usr/bin/python3
"""One https-hello step: starts a server pinned to CPU 0 (vigil's examples/https_hello,
or nginx with `listen ... ssl` in a private prefix under --tmp), runs a client pinned to
CPU 1 against it, stops the server and prints the records.

Both servers and every client speak TLS 1.3 with one cipher suite (SUITE) and the
lab's certificate (an ECDSA P-256 key, made once with `openssl req` into the build
folder, beside the lab's programs): the suite is set in an OpenSSL configuration file
given to every process of the step (OPENSSL_CONF: MinProtocol TLSv1.3, Ciphersuites), so
a server cannot pick another, and nginx is told the same in its own directives.

  --mode wrk        `wrk -t1 -c N -d S --latency https://127.0.0.1:PORT/`, keep-alive:
                    requests_per_s, server_cpu_ns_per_request, latency_us, client_busy
  --mode full       hs_client: N connections, each one handshake, one request, then
  --mode resumed    closed and replaced (resumed: offering the newest session ticket):
                    handshakes_per_s, server_cpu_ns_per_handshake, client_busy; the
                    suite and protocol the client saw, and resumed_share (resumed: at
                    least 0.9, else the step fails: the server did not resume).
                    --system may name both servers ("vigil,nginx"): both run at once
                    and one hs_client takes turns between them in slices of about
                    SLICE_S (drained at each switch, so that no handshake or second
                    crosses from one server to the other), S seconds each, the first
                    named first; a server that shares the machine's worst second
                    with the other is compared with it, not with a calmer step. The
                    records of each server are its own (its handshakes, its slices'
                    time, its CPU over the step, the client's CPU over its slices).

  driver.py --bin DIR --system vigil|nginx|vigil,nginx|nginx,vigil --mode wrk|full|resumed
            --conns N --seconds S --tmp DIR

Exit 77 (skipped) when https_hello, hs_client, nginx, wrk or openssl is missing (with both
servers named, when neither can run: one missing is said on stderr and the other is
measured alone).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
import netsrv  # noqa: E402
import wrkrun  # noqa: E402

SUITE = "TLS_AES_128_GCM_SHA256"
SLICE_S = 0.5  # hs_client's turns between two servers: long beside a handshake (~1 ms of
# the client's CPU, ~0.1 s in flight at 100 connections), short beside the shared machine's
# swings (seconds)
SYSTEMS = ("vigil", "nginx")
OPENSSL_CNF = f"""\
openssl_conf = lab_init
[lab_init]
ssl_conf = lab_ssl
[lab_ssl]
system_default = lab_default
[lab_default]
MinProtocol = TLSv1.3
Ciphersuites = {SUITE}
"""
NGINX_SSL = """listen 127.0.0.1:{port} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.3;
        ssl_conf_command Ciphersuites {suite};
        ssl_session_tickets on;"""


def certificate(bin_dir):
    """(cert, key, openssl.cnf) in the build folder, made on first use (a fresh folder
    renamed into place, so that two steps never see half a certificate)."""
    d = os.path.join(os.path.dirname(os.path.abspath(bin_dir)), "https-hello-cert")
    cert, key, cnf = (os.path.join(d, f) for f in ("cert.pem", "key.pem", "openssl.cnf"))
    if os.path.exists(cnf) and time.time() - os.path.getmtime(cert) < 20 * 86400:
        return cert, key, cnf
    openssl = shutil.which("openssl")
    if not openssl:
        netsrv.skip("openssl is not installed (the lab makes its certificate with `openssl req`)")
    tmp = f"{d}.{os.getpid()}"
    os.makedirs(tmp, exist_ok=True)
    subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", os.path.join(tmp, "key.pem"), "-out", os.path.join(tmp, "cert.pem"), "-days", "30",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(tmp, "openssl.cnf"), "w") as f:
        f.write(OPENSSL_CNF)
    shutil.rmtree(d, ignore_errors=True)
    try:
        os.rename(tmp, d)
    except OSError:  # another step made it first
        shutil.rmtree(tmp, ignore_errors=True)
    return cert, key, cnf


def nginx_argv(tmp, port, cert, key):
    argv = netsrv.nginx_argv(tmp, port)  # http-hello's nginx: one worker, return 200
    if not argv:
        netsrv.skip("nginx is not installed (Debian: nginx-light)")
    conf = argv[argv.index("-c") + 1]
    with open(conf) as f:
        text = f.read()
    plain = f"listen 127.0.0.1:{port};"
    if plain not in text:
        raise RuntimeError("lab/common/netsrv.py's nginx configuration changed: no plain listen line to make ssl")
    with open(conf, "w") as f:
        f.write(text.replace(plain, NGINX_SSL.format(port=port, cert=cert, key=key, suite=SUITE)))
    return argv


def vigil_prog(bin_dir):
    """The example: the lab's link to it, else the build's examples folder."""
    for p in (os.path.join(bin_dir, "https_hello"),
              os.path.join(os.path.dirname(os.path.abspath(bin_dir)), "examples", "https_hello")):
        if os.access(p, os.X_OK):
            return p
    netsrv.skip("program https_hello not built (examples/https_hello.c)")


def client(argv, env, seconds):
    """Runs a client pinned to CPU 1; (stdout, its CPU ns, wall s)."""
    r0, t0 = os.times(), time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=netsrv.pinned(netsrv.CLIENT_CPU))
    try:
        out, err = p.communicate(timeout=float(seconds) + 60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise RuntimeError(f"{os.path.basename(argv[0])} did not finish")
    wall, r1 = time.monotonic() - t0, os.times()
    sys.stderr.write(err[-2000:])
    if p.returncode != 0:
        raise RuntimeError(f"{os.path.basename(argv[0])} exited {p.returncode}: {err.strip()[-200:]}")
    busy = (r1.children_user + r1.children_system - r0.children_user - r0.children_system) * 1e9
    return out, busy, wall


def wrk_records(a, out, cpu, keys):
    sys.stderr.write(out["stderr"][-2000:])
    reqs, dur, errs = out["requests"], out["duration_s"], out["errors"]
    print(f"https-hello {a.system} conns {a.conns}: {reqs} requests in {dur:.2f} s "
          f"({reqs / max(dur, 1e-9):.0f}/s), server {cpu / max(reqs, 1):.0f} ns/request, errors {errs}",
          file=sys.stderr)
    return wrkrun.records(keys, out, cpu)


def hs_lines(out):
    """hs_client's result lines: {port: {key: value}}."""
    res = {}
    for ln in out.splitlines():
        if ln.startswith("hs_client "):
            f = dict(kv.split("=", 1) for kv in ln.split()[1:])
            res[int(f["port"])] = f
    if not res:
        raise RuntimeError("hs_client printed no result line")
    return res


def hs_records(a, system, f, cpu, keys):
    """The records of one server from its hs_client line f and its CPU ns."""
    hs, resumed, errs, secs = int(f["handshakes"]), int(f["resumed"]), int(f["errors"]), float(f["seconds"])
    busy = float(f["cpu"]) * 1e9
    print(f"https-hello {system} {a.mode} handshakes conns {a.conns}: {hs} in {secs:.2f} s ({hs / secs:.0f}/s), "
          f"resumed {resumed}, errors {errs}, server {cpu / max(hs, 1):.0f} ns/handshake, client busy "
          f"{busy / (secs * 1e9):.2f}, {f['version']} {f['cipher']}", file=sys.stderr)
    if hs == 0:
        raise RuntimeError(f"{system}: no handshake completed")
    if errs > hs // 100:
        raise RuntimeError(f"{system}: {errs} connections failed ({hs} completed)")
    if f["version"] != "TLSv1.3" or f["cipher"] != SUITE:
        raise RuntimeError(f"{system}: negotiated {f['version']} {f['cipher']}, not TLSv1.3 {SUITE}")
    share = resumed / hs
    if a.mode == "resumed" and share < 0.9:
        raise RuntimeError(f"{system}: only {share:.0%} of the handshakes were resumed: the server does not "
                           f"resume sessions")
    keys = dict(keys, system=system, cipher=f["cipher"])
    return [dict(keys, metric="handshakes_per_s", value=round(hs / secs, 4), total=hs, per=secs),
            dict(keys, metric="server_cpu_ns_per_handshake", value=round(cpu / hs, 4), total=cpu, per=hs),
            dict(keys, metric="resumed_share", value=round(share, 4)),
            dict(keys, metric="client_busy", value=round(busy / (secs * 1e9), 4), total=busy, per=secs * 1e9)]


def server_argv(a, system, port, cert, key):
    """The server's command line and how it says it is ready (exit 77 when it is missing)."""
    if system == "vigil":
        return [vigil_prog(a.bin), "--cert", cert, "--key", key, port], "line"
    return nginx_argv(a.tmp, port, cert, key), "port"


def missing(a, system):
    """Why the server cannot run here, or None."""
    if system == "vigil":
        exe = [os.path.join(a.bin, "https_hello"),
               os.path.join(os.path.dirname(os.path.abspath(a.bin)), "examples", "https_hello")]
        return None if any(os.access(p, os.X_OK) for p in exe) else "program https_hello not built"
    if shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK):
        return None
    return "nginx is not installed (Debian: nginx-light)"


def run_handshakes(a, systems, cert, key, cnf, env, keys):
    """One hs_client run against the servers named (taking turns); their records."""
    hs = os.path.join(a.bin, "hs_client")
    if not os.access(hs, os.X_OK):
        netsrv.skip("program hs_client not built (OpenSSL 3's libssl-dev missing?)")
    ports, argvs = {}, {}
    for s in systems:
        port = netsrv.free_port()
        while port in ports.values():
            port = netsrv.free_port()
        why = missing(a, s) if len(systems) > 1 else None
        if why:
            netsrv.log(f"https-hello: {s} not measured: {why}")
            continue
        ports[s], argvs[s] = port, server_argv(a, s, port, cert, key)
    if not ports:
        netsrv.skip(f"none of {', '.join(systems)} can run here")
    cargv = [hs, "--conns", a.conns, "--seconds", a.seconds, "--slice", SLICE_S, "--ciphersuite", SUITE]
    for s in ports:
        cargv += ["--port", ports[s]]
    cargv = [str(x) for x in cargv + (["--resume"] if a.mode == "resumed" else [])]
    servers = []
    try:
        for s in ports:
            argv, ready = argvs[s]
            servers.append(netsrv.Server(argv, ports[s], ready=ready, stop_signal=signal.SIGTERM,
                                         env={"OPENSSL_CONF": cnf}))
        c0 = [srv.cpu_ns() for srv in servers]
        out, _, _ = client(cargv, env, float(a.seconds) * len(servers))
        c1 = [srv.cpu_ns() for srv in servers]
        for s, srv in zip(ports, servers):
            if not srv.alive():
                raise RuntimeError(f"{s}: the server exited during the run (status {srv.p.returncode})")
        for s, srv in zip(ports, servers):
            rc = srv.stop()
            if rc != 0:
                raise RuntimeError(f"{s}: the server did not exit 0 on SIGTERM (status {rc})")
    finally:
        for srv in servers:
            srv.kill()
    lines = hs_lines(out)
    recs = []
    for s, x0, x1 in zip(ports, c0, c1):
        recs += hs_records(a, s, lines[ports[s]], x1 - x0, keys)
    return recs


def main(argv):
    ap = netsrv.args(__doc__, systems=SYSTEMS + tuple(f"{x},{y}" for x in SYSTEMS for y in SYSTEMS if x != y))
    ap.add_argument("--mode", choices=("wrk", "full", "resumed"), required=True)
    ap.add_argument("--conns", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args(argv)
    systems = a.system.split(",")
    if a.mode == "wrk" and len(systems) > 1:
        ap.error("--mode wrk measures one server a step")
    cert, key, cnf = certificate(a.bin)
    env = dict(os.environ, OPENSSL_CONF=cnf)
    if a.mode == "wrk":
        case = "https_hello example" if a.system == "vigil" else "return 200 ssl"
    else:
        case = f"handshake {a.mode}"
    keys = {"bench": "https-hello", "system": systems[0], "case": case, "conns": a.conns}
    if a.mode != "wrk":
        for r in run_handshakes(a, systems, cert, key, cnf, env, keys):
            print(json.dumps(r))
        return 0
    wrk = shutil.which("wrk")
    if not wrk:
        netsrv.skip("wrk is not installed")
    port = netsrv.free_port()
    server, ready = server_argv(a, a.system, port, cert, key)
    with netsrv.Server(server, port, ready=ready, stop_signal=signal.SIGTERM, env={"OPENSSL_CONF": cnf}) as srv:
        out, cpu = srv.measure(lambda: wrkrun.run(wrk, port, a.conns, a.seconds, a.tmp, netsrv.CLIENT_CPU,
                                                  scheme="https", env=env))
    for r in wrk_records(a, out, cpu, keys):
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
