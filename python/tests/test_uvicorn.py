"""uvicorn runs an ASGI app on vigil's loop given as `--loop vigil:new_event_loop`
(uvicorn's documented custom-loop form, module:function; tested with 0.54.0).
Skipped when uvicorn is not installed, unless VIGIL_REQUIRE_UVICORN is set (the wheel
test, python/scripts/wheeltest.sh, installs it and sets it, so there it must run)."""
import http.client
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

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
    # a port no other test takes meanwhile (conftest.py: below the ephemeral range, claimed)
    from conftest import find_unused_port
    port = find_unused_port()
    cmd = [sys.executable, "-m", "uvicorn", "vigil_asgi_app:app", "--loop", "vigil:new_event_loop",
           "--host", "127.0.0.1", "--port", str(port), "--log-level", "info"]
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        # wait for uvicorn to listen (bounded: it may be slow to start on a busy machine)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
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
