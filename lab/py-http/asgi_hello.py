"""py-http's raw ASGI "hello" app, served by uvicorn with httptools:

  python -m uvicorn asgi_hello:app --http httptools --loop <loop> --lifespan off ...

Every request gets 200 and "Hello, world!\\n" (text/plain), the body and headers of
examples/http_hello.c; no framework between uvicorn and the app."""

BODY = b"Hello, world!\n"
START = {"type": "http.response.start", "status": 200,
         "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(BODY)).encode())]}
DONE = {"type": "http.response.body", "body": BODY}


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send(START)
    await send(DONE)
