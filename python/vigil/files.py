"""Asynchronous files on vigil's loop, carried by vigil's file engine.

    async with vigil.open(path, "rb") as f:
        head = await f.read(4096)
    st = await vigil.stat(path)
    await vigil.rename(path, path + ".old")
    names = await vigil.listdir(folder)
    await vigil.sendfile(writer.transport, f)

Every call starts one request of libvigil's file engine (<vigil/file.h>) in the loop's
turn: on the io_uring backend it rides the turn's one io_uring_enter (a cached file's
read completes in the kernel at submission), on epoll and poll the engine's own threads
(in C, a fixed pool; never a Python thread per call, never the GIL) do the system call.
The calls need vigil's loop (vigil.new_event_loop); on another loop they raise TypeError.

Awaitables: every call below returns an asyncio.Future (no coroutine frame per call)
except read() with no size (a coroutine: several requests). Arguments are checked at
the call (TypeError, ValueError raise there); errors of the system call come from the
await as os's own: OSError's subclass for the errno (FileNotFoundError,
IsADirectoryError, FileExistsError, PermissionError, NotADirectoryError...) with
filename (and filename2 for rename) set as os.stat/os.rename set them.

Files (vigil.open) are binary only: the modes are open()'s with "b" ("rb", "wb", "ab",
"xb", "r+b", "w+b", "a+b", "x+b"); text mode raises ValueError. There is no buffering:
each read/write is one request (pread/pwrite at the file's position).

The position: read, write and seek of one File run one at a time, in the order they were
called (a queue per file; their futures complete in that order), so

    f.write(a); f.write(b); await f.seek(0); data = await f.read(8)

means what it says even without awaiting each write. pread(n, offset) and pwrite(b,
offset) leave the position alone and run beside everything. tell() answers at once: the
position after the operations completed so far. read(n) returns up to n bytes, b"" at
the end; write(b) returns the count written (len(b) unless the disk is full).

Cancellation: cancelling a task that awaits a call leaves the file consistent. The
request itself runs to its end (a regular file's I/O cannot be interrupted) and keeps
its buffer, path and file alive until then; its result is dropped. A cancelled read
leaves the position where it was (its bytes are dropped); a write the kernel performed
moves the position past what it wrote, cancelled or not (the bytes are in the file). An
operation still queued behind others when cancelled never starts. A cancelled open
closes the fd it got. close() runs after every request on the file ends (no fd is closed
under a running request); it happens whether or not its future is awaited.

sendfile(transport, file): the engine's sendfile(2) requests from the file to the
transport's socket, after what was written to the transport before. Its requests own a
dup of the socket, so closing the transport meanwhile is safe; a cancelled sendfile has
sent what it sent (the stream is then cut short, as asyncio's loop.sendfile leaves it).

Closing the loop with requests in flight ends them (their futures stay pending: the loop
is gone); a File not closed is closed when it is garbage, as io's files are.
"""
import os as _os
from asyncio import get_running_loop as _running

from . import _core

__all__ = ("File", "open", "stat", "lstat", "unlink", "remove", "rmdir", "mkdir", "rename", "replace",
           "listdir", "sendfile", "file_engine")

_MODES = {
    "r": _os.O_RDONLY,
    "w": _os.O_WRONLY | _os.O_CREAT | _os.O_TRUNC,
    "a": _os.O_WRONLY | _os.O_CREAT | _os.O_APPEND,
    "x": _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL,
}


def _flags(mode):
    if not isinstance(mode, str):
        raise TypeError(f"mode must be str, not {type(mode).__name__}")
    m = set(mode)
    if len(m) != len(mode) or not m <= set("rwaxb+t") or len(m & set("rwax")) != 1:
        raise ValueError(f"invalid mode: {mode!r}")
    if "b" not in m or "t" in m:
        raise ValueError(f"vigil.open is binary only (mode {mode!r}: use 'rb', 'wb', 'ab', 'xb', with '+' for both)")
    f = _MODES[(m & set("rwax")).pop()]
    if "+" in m:
        f = (f & ~(_os.O_WRONLY | _os.O_RDONLY)) | _os.O_RDWR
    return f


class File(_core.FileIO):
    """An open file of vigil.open (see the module's doc for the position and cancellation).

    read(n=-1)          up to n bytes at the position (b"" at the end); no n: to the end
    write(b)            b at the position (in append mode: at the end); the count written
    seek(off, whence=0) the new position (queued with reads and writes)
    tell()              the position now (not awaitable)
    pread(n, offset)    up to n bytes at offset; the position does not move
    pwrite(b, offset)   b at offset; the position does not move
    stat()              os.stat_result of the open file (fstat)
    close()             after every request on the file ends
    fileno(), name, closed
    """
    __slots__ = ()

    def read(self, n=-1):
        if n is None or n < 0:
            return self._readall()
        return self._read(n)

    async def _readall(self):
        chunks = []
        while True:
            try:  # a size hint (no I/O: the inode is in memory while the file is open)
                hint = _os.fstat(self.fileno()).st_size - self.tell()
            except (OSError, ValueError):
                hint = 0
            data = await self._read(hint + 1 if hint > 0 else 65536)
            if not data:
                return b"".join(chunks)
            chunks.append(data)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    def __repr__(self):
        return f"<vigil.files.File name={self.name!r} closed={self.closed}>"


class _Opening:
    """What vigil.open returns: await it for the File, or use it in `async with`."""
    __slots__ = ("_fut", "_file")

    def __init__(self, fut):
        self._fut = fut
        self._file = None

    def __await__(self):
        return self._fut.__await__()

    async def __aenter__(self):
        self._file = await self._fut
        return self._file

    async def __aexit__(self, *exc):
        await self._file.close()


def open(path, mode="rb", *, perms=0o666):
    """Opens path (openat through the file engine); `await` it or `async with` it.
    perms: the new file's mode bits (before the umask), as os.open's mode."""
    return _Opening(_core.file_open(_running(), path, _flags(mode), perms, File))


def stat(path, *, follow_symlinks=True):
    """os.stat(path) as an awaitable (statx through the file engine)."""
    return _core.file_stat(_running(), path, follow_symlinks)


def lstat(path):
    """os.lstat(path) as an awaitable."""
    return stat(path, follow_symlinks=False)


def unlink(path):
    """os.unlink(path) as an awaitable."""
    return _core.file_unlink(_running(), path, False)


remove = unlink


def rmdir(path):
    """os.rmdir(path) as an awaitable."""
    return _core.file_unlink(_running(), path, True)


def mkdir(path, mode=0o777):
    """os.mkdir(path, mode) as an awaitable."""
    return _core.file_mkdir(_running(), path, mode)


def rename(src, dst):
    """os.rename(src, dst) as an awaitable (renameat2, no flags: replaces dst)."""
    return _core.file_rename(_running(), src, dst, 0)


replace = rename


async def listdir(path="."):
    """os.listdir(path) as a coroutine (open, getdents64 in 32 KiB batches, close, all
    through the file engine): names without "." and "..", bytes if path is bytes."""
    d = await _core.file_open(_running(), path, _os.O_RDONLY | _os.O_DIRECTORY, 0, File)
    d._names_bytes(isinstance(_os.fspath(path), bytes))
    names = []
    try:
        while True:
            chunk, end = await d._readdir()
            names += chunk
            if end:
                break
    except BaseException:
        d.close()  # runs after the readdir request in flight, awaited or not
        raise
    await d.close()
    return names


async def sendfile(transport, file, offset=0, count=None):
    """Sends count bytes of file (a File of vigil.open; None: to its end) from offset to
    a stream transport of vigil's loop, through the file engine's sendfile(2) (no copy
    through Python), after what was written to the transport before; reading is paused
    meanwhile. Returns the bytes sent (fewer only at the end of the file). The file's
    position does not move (as pread)."""
    if not isinstance(file, File):
        raise TypeError("vigil.sendfile sends a File of vigil.open")
    if count is None:
        count = max(_os.fstat(file.fileno()).st_size - offset, 0)
    if offset < 0 or count < 0:
        raise ValueError("negative offset or count")
    sock = transport.get_extra_info("socket")
    if sock is None or transport.is_closing():
        raise RuntimeError("the transport is closing or has no socket")
    resume = transport.is_reading()
    transport.pause_reading()
    try:
        waiter = transport._make_empty_waiter()  # RuntimeError if a sendfile runs already
    except BaseException:
        if resume:
            transport.resume_reading()
        raise
    try:
        await waiter  # what was written before goes first
        sent = 0
        while sent < count:
            try:
                n = await file._sendfile(sock.fileno(), offset + sent, min(count - sent, 1 << 30))
            except BlockingIOError:  # the peer reads slowly: the engine waited a while
                continue
            if n == 0:
                break  # the end of the file
            sent += n
        return sent
    finally:
        transport._reset_empty_waiter()
        if resume and not transport.is_closing():
            transport.resume_reading()


def file_engine():
    """The running loop's file engine: "uring", "aio" or "threads"."""
    return _core.file_engine(_running())
