"""vigil: an asyncio event loop written in C over libvigil.

Importing this package changes nothing. A program opts in with one of:

    asyncio.run(main(), loop_factory=vigil.new_event_loop)          # Python 3.12+
    with asyncio.Runner(loop_factory=vigil.new_event_loop) as r:     # 3.11+
        r.run(main())
    asyncio.set_event_loop_policy(vigil.EventLoopPolicy())           # every new loop
    loop = vigil.new_event_loop(backend="epoll", precise=False)

backend selects vigil's wait engine (uring, epoll, poll; default: the VIGIL_BACKEND
environment variable, else io_uring where allowed, else epoll). precise=True makes every
timer wake with a median error within 1 us of its deadline, its tail bounded by the
kernel's own wake-up (never worse than epoll_pwait2 with 1 ns slack), at some CPU cost.
See vigil._loop for what is written in C and what in Python.
"""
from ._loop import EventLoopPolicy, Loop, new_event_loop
from ._core import libvigil_version
# Files through vigil's file engine (vigil/files.py): vigil.open(path, "rb"), vigil.stat...
from .files import File, listdir, lstat, mkdir, open, remove, rename, replace, rmdir, sendfile, stat, unlink

from . import mq
from .mq import MessageQueue

__all__ = ("Loop", "EventLoopPolicy", "new_event_loop", "run", "File", "open", "stat", "lstat", "unlink", "remove",
           "rmdir", "mkdir", "rename", "replace", "listdir", "sendfile", "mq", "MessageQueue")


def run(main, *, debug=None, **loop_kwargs):
    """asyncio.run(main) on a vigil loop (any Python >= 3.11)."""
    import asyncio
    with asyncio.Runner(debug=debug, loop_factory=lambda: Loop(**loop_kwargs)) as runner:
        return runner.run(main)
