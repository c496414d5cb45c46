"""What the network benchmarks' drivers share (lab/net-echo, lab/http-hello, lab/net-fair):
a server process started on one CPU (with the file limit it needs), its readiness, the
CPU time of all its processes and threads, its resident memory, its stop, and nginx's
configuration.

A server follows the lab's server CLI contract: `PROG PORT` listens on 127.0.0.1:PORT,
prints a line `ready` on stdout once listening and exits 0 on SIGTERM or SIGINT. A
driver picks the port (free_port), starts the server with Server(...), runs its client
and reads Server.cpu_ns() around the measured window. A server that prints no `ready`
(nginx) is ready when its port takes a connection (ready="port").
A driver's command line starts from args() (--bin, --system, --tmp); skip() ends it
with exit status 77 and the reason.
"""
import argparse
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import time

CPUS = os.cpu_count() or 1
SERVER_CPU = 0
CLIENT_CPU = 1 if CPUS > 1 else 0


def free_port():
    """A TCP port on 127.0.0.1 nothing listens on now (bound to port 0, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cpu, own_group=False, nofile=None):
    """A preexec_fn that pins the child to one CPU (and, own_group: puts it in a process
    group of its own, so that it and every process it starts can be killed at once;
    nofile: raises the child's own RLIMIT_NOFILE soft limit to at least that, within its
    hard limit: no other process's limit and no sysctl is touched)."""
    def f():
        if own_group:
            os.setpgid(0, 0)
        os.sched_setaffinity(0, {cpu})
        if nofile:
            raise_nofile(nofile)
    return f


def raise_nofile(n):
    """Raises this process's RLIMIT_NOFILE soft limit to n (at most its hard limit);
    returns the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < n:
        soft = n if hard == resource.RLIM_INFINITY else min(n, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def rss_kib(pid):
    """VmRSS of one process (KiB, /proc/<pid>/status), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def open_sockets(pid):
    """How many sockets one process has open (/proc/<pid>/fd)."""
    n = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                    n += 1
            except OSError:
                pass
    except OSError:
        pass
    return n


def _children(pid):
    """The pids whose parent is pid."""
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    out += [int(x) for x in f.read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def tree(pid):
    """pid and every descendant."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.append(p)
            todo += _children(p)
    return seen


def cpu_ns(pid):
    """CPU time of every thread of pid and its descendants, ns (the first field of each
    /proc/<pid>/task/<tid>/schedstat: exact, where /proc/<pid>/stat counts 10 ms ticks).
    Threads that ended are not counted: the servers measured here start none."""
    total = 0
    for p in tree(pid):
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return total


def start(argv_of, tries=3, **kw):
    """A Server on a free port: argv_of(port) gives its command line. Another free port
    when the server exits before it is ready (another program on the machine took the
    port between free_port() and the server's bind), up to `tries` times."""
    for i in range(tries):
        port = free_port()
        try:
            return Server(argv_of(port), port, **kw)
        except RuntimeError as e:
            if "exited before it was ready" not in str(e) or i == tries - 1:
                raise
            log(f"netsrv: {e}; trying another port")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def skip(why):
    print(f"skip: {why}", file=sys.stderr)
    sys.exit(77)


def args(doc, systems=("vigil", "nginx")):
    """A driver's parser: --bin (the build's program folder), --system, --tmp; the driver adds its own."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--system", choices=systems, required=True)
    ap.add_argument("--tmp", required=True)
    return ap


class Server:
    """A server process pinned to `cpu`; a context manager that always stops it.

    ready="line": wait for its first stdout line (`ready`; any first line is taken, and
    the port must then take a connection); ready="port": wait until the port takes a
    connection. Its stderr goes to ours (run.log)."""

    def __init__(self, argv, port, cpu=SERVER_CPU, env=None, ready="line", timeout=10.0, stop_signal=signal.SIGINT,
                 nofile=None):
        self.argv, self.port, self.stop_signal = [str(a) for a in argv], port, stop_signal
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=e,
                                  preexec_fn=pinned(cpu, own_group=True, nofile=nofile))
        self.pid = self.p.pid
        try:
            self._wait_ready(ready, timeout)
        except BaseException:
            self.kill()
            raise

    def _wait_ready(self, how, timeout):
        end = time.monotonic() + timeout
        if how == "line":
            line = b""
            fd = self.p.stdout.fileno()
            while not line.endswith(b"\n"):
                left = end - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    raise RuntimeError(f"{os.path.basename(self.argv[0])}: no line on stdout within {timeout:.0f} s")
                b = os.read(fd, 1)
                if not b:
                    raise RuntimeError(f"{os.path.basename(self.argv[0])} exited before it was ready "
                                       f"(status {self.p.wait()})")
                line += b
            if line.strip() != b"ready":
                log(f"netsrv: {os.path.basename(self.argv[0])} printed {line.strip().decode(errors='replace')!r}, "
                    f"not 'ready' (the server CLI contract); waiting for its port instead")
            else:
                return
        while True:
            if self.p.poll() is not None:
                raise RuntimeError(f"{os.path.basename(self.argv[0])} exited before it was ready "
                                   f"(status {self.p.returncode})")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError(f"{os.path.basename(self.argv[0])}: port {self.port} not open within "
                                       f"{timeout:.0f} s")
                time.sleep(0.02)

    def cpu_ns(self):
        return cpu_ns(self.pid)

    def pids(self):
        """The server's process and every descendant (nginx: master, then its worker)."""
        return tree(self.pid)

    def alive(self):
        return self.p.poll() is None

    def measure(self, client):
        """Runs client() against the server: (its result, the server's CPU ns over it).
        Then the server must still run, stop on its stop signal and exit 0."""
        c0 = self.cpu_ns()
        out = client()
        c1 = self.cpu_ns()
        if not self.alive():
            raise RuntimeError(f"the server exited during the run (status {self.p.returncode})")
        rc = self.stop()
        if rc != 0:
            raise RuntimeError(f"the server did not exit 0 on {self.stop_signal.name} (status {rc})")
        return out, c1 - c0

    def stop(self, timeout=5.0):
        """Sends the stop signal and waits; kills it after timeout. Returns its exit
        status (None: it had to be killed)."""
        if self.p.poll() is None:
            try:
                self.p.send_signal(self.stop_signal)
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                log(f"netsrv: {os.path.basename(self.argv[0])} did not stop within {timeout:.0f} s: killed")
                self.kill()
                return None
        self._kill_group()
        if self.p.stdout:
            self.p.stdout.close()
        return self.p.returncode

    def _kill_group(self):
        """Whatever of the server's process group is left (an nginx worker whose master
        was killed)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def kill(self):
        """The server and every process it started, at once."""
        self._kill_group()
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()
        return False


BODY = "Hello, world!\\n"  # nginx's string syntax: the 14 bytes "Hello, world!\n"

# nginx as the lab runs it (http-hello, net-fair): one worker, `return 200` with the body
# and Content-Type of examples/http_hello.c, no access log, keep-alive without a request
# limit (nginx's default closes a connection after 1000 requests; http_hello never does).
NGINX_CONF = """\
{user}worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
worker_rlimit_nofile {nofile};
events {{
    worker_connections {conns};
}}
http {{
    access_log off;
    keepalive_requests 1000000000;
    keepalive_timeout 3600s;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            default_type text/plain;
            return 200 "{body}";
        }}
    }}
}}
"""


def nginx_argv(tmp, port, conns=4096, nofile=8192):
    """nginx's command line in a private prefix under tmp (worker_connections conns,
    worker_rlimit_nofile nofile), or None when nginx is not installed."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if not nginx:
        return None
    prefix = os.path.join(tmp, f"nginx-{port}")
    os.makedirs(prefix, exist_ok=True)
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(prefix=prefix, port=port, body=BODY, conns=conns, nofile=nofile,
                                  user="user root;\n" if os.geteuid() == 0 else ""))
    return [nginx, "-p", prefix, "-e", os.path.join(prefix, "error.log"), "-c", conf, "-g", "daemon off;"]
