"""Python's ssl module as the other end of tests/tls/python_peers.c.
  peer.py server PORT CERT KEY VERSION   three connections, then exit 0:
     1. reads 1 MiB (the pattern), sends 1 MiB back in chunks of random sizes, then
        waits for the client's close_notify and answers it (unwrap);
     2. the whole connection -- handshake, 3000 bytes, close_notify -- written one
        byte per send (TCP_NODELAY), through an SSLObject on memory BIOs;
     3. sends "bye" and closes TCP without close_notify (truncation).
  peer.py client PORT CAFILE VERSION     the same three against an echo server:
     1. sends 1 MiB in random chunks, reads it back, unwrap;
     2. byte by byte: handshake, 5000 bytes, reads the echo, close_notify;
     3. sends "abc", reads the echo, closes without close_notify.
VERSION: 1.2 or 1.3. The pattern is tlsenv.h's fill_pattern with seed 7."""
import random, socket, ssl, sys, time

mode, port = sys.argv[1], int(sys.argv[2])
ver = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}[sys.argv[-1]]
MIB = 1 << 20


def pattern(n, seed=7):
    return bytes(((i * 131 + seed + (i >> 9)) & 0xFF) for i in range(n))


def recv_exact(s, n):
    data = bytearray()
    while len(data) < n:
        b = s.recv(min(65536, n - len(data)))
        assert b, f"end after {len(data)} of {n} bytes"
        data += b
    return bytes(data)


def chunks(data):
    i = 0
    while i < len(data):
        n = random.randint(1, 70000)
        yield data[i:i + n]
        i += n


class Bytewise:
    """A TLS connection whose every byte goes out in a send of its own."""

    def __init__(self, sock, ctx, server_side, hostname=None):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock, self.inc, self.out = sock, ssl.MemoryBIO(), ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self.inc, self.out, server_side=server_side, server_hostname=hostname)
        self.retry(self.obj.do_handshake)

    def flush(self):
        for b in self.out.read():
            self.sock.sendall(bytes([b]))
            time.sleep(0.00005)

    def retry(self, fn, *args):
        while True:
            try:
                r = fn(*args)
                self.flush()
                return r
            except ssl.SSLWantReadError:
                self.flush()
                d = self.sock.recv(65536)
                if d:
                    self.inc.write(d)
                else:
                    self.inc.write_eof()

    def read_exact(self, n):
        data = b""
        while len(data) < n:
            data += self.retry(self.obj.read, n - len(data))
        return data

    def write(self, data):
        self.retry(self.obj.write, data)


def server():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ctx.maximum_version = ver
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    ls = socket.create_server(("127.0.0.1", port))  # port 0: the kernel's pick, said below
    print("ready port %d." % ls.getsockname()[1], flush=True)
    s = ctx.wrap_socket(ls.accept()[0], server_side=True)
    assert s.version() == {"1.2": "TLSv1.2", "1.3": "TLSv1.3"}[sys.argv[-1]], s.version()
    assert recv_exact(s, MIB) == pattern(MIB), "1 MiB from the client differs"
    for c in chunks(pattern(MIB)):
        s.sendall(c)
    assert s.recv(1) == b"", "data after the 1 MiB"  # the client's close_notify: b""
    s.unwrap()
    s.close()

    raw = ls.accept()[0]
    b = Bytewise(raw, ctx, True)
    assert b.read_exact(2) == b"ok"
    b.write(pattern(3000))
    try:
        assert b.retry(b.obj.read, 1) == b"", "data after 3000 bytes"  # b"": close_notify
    except ssl.SSLZeroReturnError:
        pass  # the client's close_notify, said another way
    b.retry(b.obj.unwrap)
    raw.close()

    s = ctx.wrap_socket(ls.accept()[0], server_side=True)
    assert s.recv(1) == b"x"
    s.sendall(b"bye")
    time.sleep(0.05)
    s.close()  # no unwrap: no close_notify, a FIN


def client():
    ctx = ssl.create_default_context(cafile=sys.argv[3])
    ctx.minimum_version = ctx.maximum_version = ver
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    data = pattern(MIB)
    for c in chunks(data):
        s.sendall(c)
    assert recv_exact(s, MIB) == data, "1 MiB echoed differs"
    s.unwrap()  # ours, then the server's close_notify
    s.close()

    raw = socket.create_connection(("127.0.0.1", port))
    b = Bytewise(raw, ctx, False, "localhost")
    data = pattern(5000, 3)
    b.write(data)
    assert b.read_exact(5000) == data, "5000 bytes echoed differ"
    b.retry(b.obj.unwrap)
    raw.close()

    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    s.sendall(b"abc")
    assert recv_exact(s, 3) == b"abc"
    s.close()  # no close_notify


server() if mode == "server" else client()
print("peer: ok", flush=True)
