"""One system's run of py-files: 4 KiB reads, 4 KiB writes or stats, with n in flight.

  py_files.py --system vigil|aiofiles|anyio|python --op read|write|stat --inflight 1,64
              --dir DIR --seconds S --warmup W [--backend uring|epoll|poll]

n workers (tasks) each loop on one operation: read/write: 4096 bytes at its own file's
position (a 256 KiB file per worker, opened once with no buffering, so each call is one
system call for every system: buffering=0 for aiofiles, anyio and Python's own; vigil's
files are unbuffered), back to the start (seek 0) at the end of the file; stat: the
next of 10,000 files (worker i takes i, i+n, ...). The files are made, and read once
(cached), before the clock starts. After the warm-up, the window counts the operations
completed and the process's CPU (every thread: the executors' too) over S seconds.

  vigil     vigil.open / f.read / f.write / f.seek / vigil.stat on vigil's loop
  aiofiles  aiofiles.open / aiofiles.os.stat on asyncio's default loop (its executor)
  anyio     anyio.open_file / anyio.Path.stat on asyncio's default loop (anyio's threads)
  python    plain blocking calls on the loop's thread (case "blocking": the floor that
            stalls the loop; the n files taken in turn by one task)

Prints the records (lab contract): ops_per_s and cpu_ns_per_op, pooled over rounds as
the median round."""
import argparse
import asyncio
import json
import os
import resource
import sys
import time

FILE_BYTES = 256 * 1024
OP_BYTES = 4096
NSTAT = 10000


def cpu_ns():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return int((r.ru_utime + r.ru_stime) * 1e9)


def prepare(d, op, n):
    """The files: n of 256 KiB for read/write, 10,000 empty ones for stat (made once per
    scratch dir, into a temporary name renamed when complete)."""
    if op == "stat":
        sd = os.path.join(d, "stat10k")
        if not os.path.isdir(sd):
            tmp = f"{sd}.tmp{os.getpid()}"
            os.makedirs(tmp)
            for i in range(NSTAT):
                os.close(os.open(os.path.join(tmp, f"f{i:05d}"), os.O_CREAT | os.O_WRONLY, 0o644))
            os.rename(tmp, sd)
        paths = [os.path.join(sd, f"f{i:05d}") for i in range(NSTAT)]
        for p in paths:
            os.stat(p)  # in the dentry cache
        return paths
    paths = []
    blob = os.urandom(FILE_BYTES)
    for i in range(n):
        p = os.path.join(d, f"{op}{i:03d}")
        if not os.path.exists(p) or os.path.getsize(p) != FILE_BYTES:
            with open(p, "wb") as f:
                f.write(blob)
        with open(p, "rb") as f:
            f.read()  # cached
        paths.append(p)
    return paths


class Count:
    __slots__ = ("n", "run")

    def __init__(self):
        self.n = 0
        self.run = True


async def measure(workers, warm, secs):
    """Runs the workers; (ops, wall s, cpu ns) over the window after the warm-up."""
    c = Count()
    tasks = [asyncio.ensure_future(w(c)) for w in workers]
    await asyncio.sleep(warm)
    n0, t0, r0 = c.n, time.perf_counter(), cpu_ns()
    await asyncio.sleep(secs)
    n1, t1, r1 = c.n, time.perf_counter(), cpu_ns()
    c.run = False
    await asyncio.gather(*tasks)
    return n1 - n0, t1 - t0, r1 - r0


# ------------------------------------------------------------------ systems

def vigil_workers(op, paths, n, opened):
    import vigil
    if op == "stat":
        return _stat_workers(vigil.stat, paths, n)
    buf = bytes(OP_BYTES)
    return [_file_worker(op, f, buf) for f in opened]


async def vigil_open(op, paths):
    import vigil
    return [await vigil.open(p, "rb" if op == "read" else "r+b") for p in paths]


def aiofiles_workers(op, paths, n, opened):
    import aiofiles.os
    if op == "stat":
        return _stat_workers(aiofiles.os.stat, paths, n)
    buf = bytes(OP_BYTES)
    return [_file_worker(op, f, buf) for f in opened]


def _stat_workers(stat, paths, n):
    """n workers, each stat-ing every n-th of the NSTAT paths in turn."""
    def mk(i):
        async def w(c):
            j = i
            while c.run:
                await stat(paths[j])
                c.n += 1
                j = (j + n) % NSTAT
        return w
    return [mk(i) for i in range(n)]


def _file_worker(op, f, buf):
    async def w(c):
        left = FILE_BYTES
        while c.run:
            if op == "read":
                await f.read(OP_BYTES)
            else:
                await f.write(buf)
            c.n += 1
            left -= OP_BYTES
            if left <= 0:
                await f.seek(0)
                left = FILE_BYTES
    return w


async def aiofiles_open(op, paths):
    import aiofiles
    return [await aiofiles.open(p, "rb" if op == "read" else "r+b", buffering=0) for p in paths]


def anyio_workers(op, paths, n, opened):
    import anyio
    buf = bytes(OP_BYTES)
    if op == "stat":
        apaths = [anyio.Path(p) for p in paths]

        def mk(i):
            async def w(c):
                j = i
                while c.run:
                    await apaths[j].stat()
                    c.n += 1
                    j = (j + n) % NSTAT
            return w
        return [mk(i) for i in range(n)]
    return [_file_worker(op, f, buf) for f in opened]


async def anyio_open(op, paths):
    import anyio
    return [await anyio.open_file(p, "rb" if op == "read" else "r+b", buffering=0) for p in paths]


def python_workers(op, paths, n, opened):
    """One task, the n files (or stat streams) in turn, blocking; it yields to the loop
    every 64 operations so the window's timers can run."""
    buf = bytes(OP_BYTES)

    async def w(c):
        left = [FILE_BYTES] * n
        js = list(range(n))
        k = 0
        while c.run:
            for _ in range(64):
                i = k % n
                k += 1
                if op == "stat":
                    os.stat(paths[js[i]])
                    js[i] = (js[i] + n) % NSTAT
                else:
                    f = opened[i]
                    if op == "read":
                        f.read(OP_BYTES)
                    else:
                        f.write(buf)
                    left[i] -= OP_BYTES
                    if left[i] <= 0:
                        f.seek(0)
                        left[i] = FILE_BYTES
                c.n += 1
            await asyncio.sleep(0)
    return [w]


async def python_open(op, paths):
    return [open(p, "rb" if op == "read" else "r+b", buffering=0) for p in paths]


SYSTEMS = {
    "vigil": (vigil_open, vigil_workers),
    "aiofiles": (aiofiles_open, aiofiles_workers),
    "anyio": (anyio_open, anyio_workers),
    "python": (python_open, python_workers),
}


async def main_async(a, n, paths):
    opener, workers = SYSTEMS[a.system]
    opened = await opener(a.op, paths) if a.op != "stat" else []
    try:
        return await measure(workers(a.op, paths, n, opened), a.warmup, a.seconds)
    finally:
        for f in opened:
            r = f.close()
            if asyncio.iscoroutine(r) or isinstance(r, asyncio.Future):
                await r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--system", required=True, choices=sorted(SYSTEMS))
    ap.add_argument("--op", required=True, choices=("read", "write", "stat"))
    ap.add_argument("--inflight", default="1,64")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--warmup", type=float, default=0.1)
    ap.add_argument("--backend")
    a = ap.parse_args()
    try:
        if a.system == "vigil":
            import vigil
        elif a.system in ("aiofiles", "anyio"):
            __import__(a.system)
    except ImportError as e:
        print(f"skip: {a.system} is not installed in {sys.executable}: {e}", file=sys.stderr)
        sys.exit(77)
    os.makedirs(a.dir, exist_ok=True)
    for n in (int(x) for x in a.inflight.split(",")):
        paths = prepare(a.dir, a.op, n if a.op != "stat" else 0)
        if a.system == "vigil":
            loop = vigil.new_event_loop(backend=a.backend)
        else:
            loop = asyncio.new_event_loop()  # asyncio's default loop
        try:
            ops, wall, cpu = loop.run_until_complete(main_async(a, n, paths))
            engine = None
            if a.system == "vigil":
                engine = loop.run_until_complete(_engine())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()
        base = dict(bench="py-files", system=a.system, case="blocking" if a.system == "python" else a.system,
                    op=a.op, inflight=n)
        if a.backend:
            base["backend"] = a.backend
        if engine:
            base["engine"] = engine
        print(json.dumps(dict(base, metric="ops_per_s", value=round(ops / wall, 1), total=ops, per=wall,
                              pool="median", n=ops)))
        print(json.dumps(dict(base, metric="cpu_ns_per_op", value=round(cpu / max(ops, 1), 1), total=cpu,
                              per=max(ops, 1), pool="median", n=ops)))
        sys.stdout.flush()


async def _engine():
    import vigil
    return vigil.files.file_engine()


if __name__ == "__main__":
    main()
