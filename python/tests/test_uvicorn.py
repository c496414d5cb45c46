"""uvicorn runs an ASGI app on vigil's loop given as `--loop vigil:new_event_loop`
(uvicorn's documented custom-loop form, module:function; uvicorn 0.36 and later).
Skipped when uvicorn is not installed, unless VIGIL_REQUIRE_UVICORN is set (the wheel
test, python/scripts/wheeltest.sh, installs it and sets it, so there it must run)."""
import http.client
import os
import signal
import socket
import subprocess
import sys
import textwrap

import pytest

APP = textwrap.dedent('''
    import asyncio

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        loop = asyncio.get_running_loop()
        body = f"{type(loop).__module__}.{type(loop).__qualname__} {getattr(loop, 'backend', '-')}"
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": body.encode()})
''')


def test_uvicorn_loop_vigil_new_event_loop(tmp_path):
    try:
        import uvicorn
    except ImportError:
        if os.environ.get("VIGIL_REQUIRE_UVICORN"):
            raise
        pytest.skip("uvicorn is not installed (the wheel test installs it from PyPI)")
    (tmp_path / "vigil_asgi_app.py").write_text(APP)
    # The listening socket is made here and handed over (--fd): no port to race for.
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    port = ls.getsockname()[1]
    cmd = [sys.executable, "-m", "uvicorn", "vigil_asgi_app:app", "--loop", "vigil:new_event_loop",
           "--fd", str(ls.fileno()), "--log-level", "info"]
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, pass_fds=(ls.fileno(),), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    ls.close()
    try:
        # connect succeeds at once (the socket listens already); the answer waits for
        # uvicorn to start and accept
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("GET", "/")
            resp = conn.getresponse()
            status, body = resp.status, resp.read().decode()
            conn.request("GET", "/again")  # keep-alive: a second request on the connection
            resp = conn.getresponse()
            again = resp.read().decode()
        finally:
            conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert status == 200, out
    assert body.startswith("vigil._loop.Loop "), (body, out)
    want = os.environ.get("VIGIL_BACKEND")
    if want:
        assert body.endswith(" " + want), body
    assert again == body
    assert "Traceback" not in out, out
    assert proc.returncode == 0, out
    print(uvicorn.__version__, body)
