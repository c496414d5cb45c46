"""examples/https_hello against real TLS clients, on the backend VIGIL_BACKEND names:
curl --cacert over TLS 1.2 and 1.3 (two requests on one connection), Python's ssl
module (pipelined requests, the server's close_notify after "Connection: close" --
unwrap() succeeds only if it came --, resumption with the session of a first
connection), a plain-HTTP client (closed without an answer), SIGTERM (exit 0, nothing
from the sanitizers). Certificates made here with the openssl tool, in a temporary
directory."""
import os, shutil, signal, socket, ssl, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from exampletest import Server, read_all  # noqa: E402

binary = sys.argv[1]
if not shutil.which("openssl") or not shutil.which("curl"):
    print("skip: needs the openssl and curl tools")
    sys.exit(77)
tmp = tempfile.mkdtemp(prefix="vigil-https-")
try:
    def sh(*cmd):
        subprocess.run(cmd, cwd=tmp, check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    sh("openssl", "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=test-ca")
    sh("openssl", "req", *ec, "-keyout", "key.pem", "-out", "c.csr", "-subj", "/CN=localhost")
    with open(os.path.join(tmp, "ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    sh("openssl", "x509", "-req", "-in", "c.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
       "-days", "30", "-extfile", "ext", "-out", "cert.pem")
    ca, cert, key = (os.path.join(tmp, n) for n in ("ca.pem", "cert.pem", "key.pem"))

    srv = Server(binary, "--cert", cert, "--key", key)
    server_proc = srv.proc  # killed in the finally below should a check fail
    url = f"https://localhost:{srv.port}/"
    for ver in (["--tlsv1.2", "--tls-max", "1.2"], ["--tlsv1.3"]):
        r = subprocess.run(["curl", "-sS", "--cacert", ca, *ver, "-w", "%{http_code} %{num_connects}\\n",
                            url, url], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, f"curl {ver}: {r.returncode} {r.stderr}"
        assert r.stdout == "Hello, world!\n200 1\nHello, world!\n200 0\n", f"curl {ver}: {r.stdout!r}"

    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["h2", "http/1.1"])

    def get(session=None):
        s = ctx.wrap_socket(srv.connect(), server_hostname="localhost", session=session)
        assert s.selected_alpn_protocol() == "http/1.1", s.selected_alpn_protocol()
        req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        s.sendall(req * 2 + b"GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = read_all(s, reset_ok=False)
        assert data.count(b"HTTP/1.1 200 OK") == 3 and data.endswith(b"Hello, world!\n"), data
        assert b"Connection: close" in data
        reused = s.session_reused
        sess = s.session
        s.unwrap()  # raises unless the server's close_notify came before its FIN
        s.close()
        return sess, reused

    sess, reused = get()
    assert not reused
    for _ in range(2):
        sess2, reused = get(sess)
        assert reused, "no resumption with the first connection's session"

    p = srv.connect()  # plain HTTP to the TLS port: closed, no answer
    p.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        assert p.recv(4096) == b""
    except ConnectionResetError:
        pass  # closed with bytes of ours unread: a reset, still no answer
    p.close()

    code, err = srv.stop()
    assert code == 0, f"exit {code}: {err}"
    assert "Sanitizer" not in err and "runtime error" not in err, err
    print("https_hello: ok")
finally:
    if "server_proc" in globals() and server_proc.poll() is None:
        server_proc.kill()
        server_proc.wait()
    shutil.rmtree(tmp, ignore_errors=True)
