"""POSIX message queues (vigil's, <vigil/mq.h>) for asyncio on vigil's loop.

    q = await vigil.mq.open("/jobs", create=True, maxmsg=64, msgsize=1024)
    await q.put(b"urgent", priority=9)
    data, priority = await q.get()        # highest priority first, FIFO within one
    q.close(); vigil.mq.unlink("/jobs")

The queue is vigil's shared-memory queue (the same one C programs reach with
vigil_mq_open/vigil_mq_send/vigil_mq_receive, or the mq_* names through libvigil-preload),
not the kernel's /dev/mqueue: <vigil/mq.h> says where it lives (VIGIL_MQ_DIR, else
/dev/shm) and how it differs. Every call is non-blocking on the loop's thread: a get()
on an empty queue or a put() on a full one waits through a vigil mq watcher on the loop
(io_uring with Linux 6.7+: the futex wait rides in the loop's own io_uring_enter; other
backends: vigil's helper thread per watcher wakes the loop). The coroutines need the
running loop to be vigil's.

Waiters are served in the order they came (a get() finding a message at once does not
queue); a cancelled get() or put() has taken or sent nothing.
"""

import asyncio
import collections
import os

from . import _core

__all__ = ("MessageQueue", "open", "unlink", "PRIO_MAX")

PRIO_MAX = 32768  # priorities are 0 .. PRIO_MAX - 1


def unlink(name):
    """Removes the queue's name (descriptors already open keep working)."""
    _core.MQ.unlink(name)


class MessageQueue:
    """One open descriptor of a vigil message queue, for coroutines on vigil's loop."""

    def __init__(self, name, *, read=True, write=True, create=False, exclusive=False, mode=0o600,
                 maxmsg=None, msgsize=None):
        if not (read or write):
            raise ValueError("read, write or both")
        oflag = os.O_RDWR if read and write else (os.O_RDONLY if read else os.O_WRONLY)
        if create:
            oflag |= os.O_CREAT
        if exclusive:
            oflag |= os.O_EXCL
        self._q = _core.MQ(name, oflag, mode, maxmsg or 0, msgsize or 0)
        self.name = name
        self._getters = collections.deque()  # futures
        self._putters = collections.deque()  # (future, data, priority)
        self._loop = None

    def __repr__(self):
        return f"<vigil.mq.MessageQueue {self.name!r}{' closed' if self.closed else ''}>"

    @property
    def closed(self):
        return self._q.closed

    @property
    def msgsize(self):
        """The largest message the queue takes."""
        return self._q.msgsize

    def attributes(self):
        """(maxmsg, msgsize, curmsgs): the queue's depth, message size, messages now."""
        _, maxmsg, msgsize, cur = self._q.getattr()
        return maxmsg, msgsize, cur

    def qsize(self):
        return self._q.getattr()[3]

    def get_nowait(self):
        """(bytes, priority) of the next message; BlockingIOError when empty."""
        return self._q.receive_nowait()

    def put_nowait(self, data, priority=0):
        """Sends data (bytes-like) at priority; BlockingIOError when full."""
        self._q.send_nowait(data, priority)

    def _bind(self):
        loop = asyncio.get_running_loop()
        if self._loop is None or (self._loop.is_closed() and not self._getters and not self._putters):
            if not isinstance(loop, _core.Loop):
                raise RuntimeError("vigil.mq needs vigil's event loop running")
            self._loop = loop
        elif self._loop is not loop:
            raise RuntimeError("this queue is used from another loop")
        return loop

    async def get(self):
        """The next message, (bytes, priority): highest priority first."""
        if not self._getters:
            try:
                return self._q.receive_nowait()
            except BlockingIOError:
                pass
        loop = self._bind()
        fut = loop.create_future()
        self._getters.append(fut)
        if not self._q.watching(False):
            self._q.watch(loop, False, self._readable)
        try:
            return await fut
        finally:
            if not fut.done() or fut.cancelled():
                try:
                    self._getters.remove(fut)
                except ValueError:
                    pass

    async def put(self, data, priority=0):
        """Sends data at priority (0 .. PRIO_MAX-1), waiting while the queue is full."""
        if not self._putters:
            try:
                self._q.send_nowait(data, priority)
                return
            except BlockingIOError:
                pass
        data = bytes(data)
        loop = self._bind()
        fut = loop.create_future()
        entry = (fut, data, priority)
        self._putters.append(entry)
        if not self._q.watching(True):
            self._q.watch(loop, True, self._writable)
        try:
            await fut
        finally:
            if not fut.done() or fut.cancelled():
                try:
                    self._putters.remove(entry)
                except ValueError:
                    pass

    # The watchers' callbacks (level-triggered: each turn while the condition holds).
    # A watcher is stopped once nobody waits when it fires, so a queue nobody waits on
    # costs nothing.

    def _readable(self):
        getters = self._getters
        served = False
        while getters:
            fut = getters[0]
            if fut.done():
                getters.popleft()
                continue
            try:
                msg = self._q.receive_nowait()
            except BlockingIOError:
                return  # another receiver took it; wait on
            except OSError as exc:
                getters.popleft()
                fut.set_exception(exc)
                continue
            getters.popleft()
            fut.set_result(msg)
            served = True
        if not served:  # kept while its getters come back for more, as a loop of get()s does
            self._q.unwatch(False)

    def _writable(self):
        putters = self._putters
        served = False
        while putters:
            fut, data, prio = putters[0]
            if fut.done():
                putters.popleft()
                continue
            try:
                self._q.send_nowait(data, prio)
            except BlockingIOError:
                return
            except OSError as exc:
                putters.popleft()
                fut.set_exception(exc)
                continue
            putters.popleft()
            fut.set_result(None)
            served = True
        if not served:
            self._q.unwatch(True)

    def close(self):
        """Closes the descriptor; waiting get()/put() calls raise ValueError."""
        if self._q.closed:
            return
        self._q.close()
        exc = ValueError("message queue is closed")
        for fut in self._getters:
            if not fut.done():
                fut.set_exception(exc)
        for fut, _, _ in self._putters:
            if not fut.done():
                fut.set_exception(exc)
        self._getters.clear()
        self._putters.clear()

    def unlink(self):
        """Removes this queue's name."""
        unlink(self.name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.close()


async def open(name, *, read=True, write=True, create=False, exclusive=False, mode=0o600, maxmsg=None,
               msgsize=None):
    """Opens (create=True: creates, with mode, maxmsg messages of msgsize bytes at most;
    defaults 10 and 8192) the queue name ("/name") and returns a MessageQueue."""
    return MessageQueue(name, read=read, write=write, create=create, exclusive=exclusive, mode=mode,
                        maxmsg=maxmsg, msgsize=msgsize)
