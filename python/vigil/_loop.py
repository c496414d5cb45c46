"""vigil's asyncio event loop: the Python layer over the C core (vigil._core).

What runs where
---------------
The C core (``vigil._core.Loop``) owns everything a running loop does each turn: the
ready queue of handles (``call_soon``), the timers (``call_later``/``call_at`` on vigil
timers with nanosecond deadlines, never early), the fd readers and writers (``vigil_io``),
the run loop itself (``_run``: one vigil turn, then the callbacks that became ready), and
the socket transport's read/write path (``vigil._core.TransportIO``).

This module subclasses the core together with ``asyncio.base_events.BaseEventLoop``, and
keeps from BaseEventLoop only its public, protocol-level pieces that need nothing but the
abstract primitives: ``run_until_complete``, ``create_connection``/``create_server``'s
address handling, ``create_datagram_endpoint``, ``getaddrinfo`` (via
``run_in_executor``), ``start_tls``, ``sendfile``'s fallback, the exception handler and
debug-mode plumbing, async generator shutdown. BaseEventLoop's own scheduler
(``_run_once``, ``_ready``, ``_scheduled``) never runs: the attributes are deleted at
construction and every method that would use them is replaced here or in C.

Written here, in Python (rarely hot): the ``sock_*`` coroutines, ``_start_serving`` and
the accept path, Unix sockets' address handling, the datagram transport's shell (its
receive/send path is ``vigil._core.DgramIO``, dgram.c), signals
(``add_signal_handler`` through ``signal.set_wakeup_fd``), subprocesses (vigil._subprocess:
the child started by vigil_proc, its exit seen through its pidfd, its pipes the C stream
transport's; what vigil_proc cannot do goes to asyncio's Popen transport, the exit still
by a pidfd on this loop: no child watcher either way), TLS's state machine (asyncio's own
``sslproto.SSLProtocol`` subclassed, its record path in C: csrc/tls.c, over the C transport)
and ``sendfile`` (``os.sendfile`` when the socket is writable).
"""

import asyncio
import contextvars
import errno
import functools
import io
import os
import signal
import socket
import stat
import sys
import threading
import warnings
import weakref

from asyncio import base_events, constants, coroutines, events, format_helpers
from asyncio import futures, protocols, sslproto, transports, trsock, unix_events
from asyncio.log import logger

from . import _core, _subprocess

__all__ = ("Loop", "EventLoopPolicy", "new_event_loop")

_HAS_SOCK_NONBLOCK = hasattr(socket, "SOCK_NONBLOCK")


def _handle_repr(h):
    r = h._repr
    if r is not None:
        return r
    info = [type(h).__name__]
    if h.cancelled():
        info.append("cancelled")
    if isinstance(h, _core.TimerHandle):
        info.append(f"when={h.when()}")
    if h._callback is not None:
        info.append(format_helpers._format_callback_source(h._callback, h._args))
    if h._source_traceback:
        frame = h._source_traceback[-1]
        info.append(f"created at {frame[0]}:{frame[1]}")
    return "<{}>".format(" ".join(info))


_core._set_hooks(_handle_repr)


def _sighandler_noop(signum, frame):
    """Dummy signal handler: the signal number reaches the loop via the wakeup fd."""


try:
    from ssl import SSLSocket as _SSLSocket
except ImportError:  # a Python without ssl: no socket can be one
    _SSLSocket = ()


def _check_sock(sock):
    # The plain socket first: no isinstance walk on the path of every sock_* call.
    if type(sock) is not socket.socket and isinstance(sock, _SSLSocket):
        raise TypeError("Socket cannot be of type SSLSocket")


# ---------------------------------------------------------------- TLS (tls.c, tls_session.c)
# asyncio's SSLProtocol with the connection's whole life in C: the record path
# (python/csrc/tls.c) and the session -- handshake, shutdown, close_notify, their timeouts,
# eof, connection_made/lost (python/csrc/tls_session.c, whose comment lists what stays
# sslproto's Python: error reports, debug mode, BufferedProtocol apps, writelines). The
# user's ssl.SSLContext makes the SSLObject as with asyncio. VIGIL_TLS=python selects
# sslproto unchanged (for comparison). The session methods follow 3.11/3.12's sslproto;
# 3.13 changed _abort and the app transport's close, so there only the record path is C.
_TLS_C = _core._tls_init(sslproto.SSLProtocolState.WRAPPED, sslproto.SSLAgainErrors,
                         sslproto.SSLProtocol.buffer_updated, sslproto.SSLProtocol.get_buffer,
                         sslproto.SSLProtocol._write_appdata)
_TLS_SESSION_C = (_core._tls_session_init(sslproto.SSLProtocolState, sslproto.AppProtocolState,
                                          sslproto.SSLProtocol, sslproto.ssl.SSLError, sslproto.SSLAgainErrors,
                                          sslproto.logger)
                  if sslproto.ssl is not None and sys.version_info < (3, 13) else {})


class _SSLAppTransport(sslproto._SSLProtocolTransport):
    write = _TLS_C["write"]


class _SSLProtocol(sslproto.SSLProtocol):
    get_buffer = _TLS_C["get_buffer"]
    buffer_updated = _TLS_C["buffer_updated"]

    def _get_app_transport(self):
        if self._app_transport is None:
            if self._app_transport_created:
                raise RuntimeError("Creating _SSLProtocolTransport twice")
            self._app_transport = _SSLAppTransport(self._loop, self)
            self._app_transport_created = True
        return self._app_transport


for _name, _meth in _TLS_SESSION_C.items():
    setattr(_SSLProtocol, _name, _meth)



# sock_recv, sock_recv_into, sock_sendall (csrc/sock.c): method descriptors of _core.Loop.
_SOCK_C = _core._sock_methods()


def _ssl_protocol_class():
    return sslproto.SSLProtocol if os.environ.get("VIGIL_TLS") == "python" else _SSLProtocol


class Loop(_core.Loop, base_events.BaseEventLoop):
    """An asyncio event loop run by vigil (see the module docstring)."""

    def __init__(self, *, backend=None, precise=False):
        base_events.BaseEventLoop.__init__(self)
        # BaseEventLoop's scheduler state: never used (the C core schedules).
        del self._ready
        del self._scheduled
        self._signal_handlers = {}
        self._transports = weakref.WeakValueDictionary()
        # fds whose last sock_recv/sock_recv_into had to wait (see _recv)
        self._recv_waited = set()
        self._servers_accepting = {}
        # Signals reach the loop through this socket pair (signal.set_wakeup_fd): its
        # read end is watched so a signal ends the wait, and Python's own handler runs
        # in the loop thread (KeyboardInterrupt included) right after.
        self._sig_rsock, self._sig_wsock = socket.socketpair()
        self._sig_rsock.setblocking(False)
        self._sig_wsock.setblocking(False)
        self._wakeup_prev = None
        self._add_reader(self._sig_rsock.fileno(), self._read_signals)

    def __repr__(self):
        return (f"<{type(self).__name__} backend={self.backend} running={self.is_running()} "
                f"closed={self.is_closed()} debug={self.get_debug()}>")

    # ------------------------------------------------------------ running

    def run_forever(self):
        self._check_closed()
        self._check_running()
        self._set_coroutine_origin_tracking(self._debug)
        old_agen_hooks = sys.get_asyncgen_hooks()
        wakeup_set = self._install_wakeup_fd()
        try:
            self._thread_id = threading.get_ident()
            sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook,
                                   finalizer=self._asyncgen_finalizer_hook)
            events._set_running_loop(self)
            self._run()
        finally:
            self._stopping = False
            self._thread_id = None
            events._set_running_loop(None)
            self._set_coroutine_origin_tracking(False)
            sys.set_asyncgen_hooks(*old_agen_hooks)
            if wakeup_set:
                self._restore_wakeup_fd()

    def _install_wakeup_fd(self):
        if threading.current_thread() is not threading.main_thread() or self._sig_wsock is None:
            return False
        fd = self._sig_wsock.fileno()
        try:
            prev = signal.set_wakeup_fd(fd, warn_on_full_buffer=False)
        except (ValueError, OSError):
            return False
        if prev == fd:
            return False
        self._wakeup_prev = prev
        return True

    def _restore_wakeup_fd(self):
        if self._signal_handlers:
            return  # add_signal_handler keeps it until the last handler goes
        prev, self._wakeup_prev = self._wakeup_prev, None
        try:
            signal.set_wakeup_fd(-1 if prev is None else prev)
        except (ValueError, OSError):
            pass

    def close(self):
        if self.is_running():
            raise RuntimeError("Cannot close a running event loop")
        if self.is_closed():
            return
        if self._debug:
            logger.debug("Close %r", self)
        if sys is not None:  # not at interpreter shutdown
            for sig in list(self._signal_handlers):
                self.remove_signal_handler(sig)
        self._vigil_close()
        for s in (self._sig_rsock, self._sig_wsock):
            if s is not None:
                s.close()
        self._sig_rsock = self._sig_wsock = None
        self._executor_shutdown_called = True
        executor = self._default_executor
        if executor is not None:
            self._default_executor = None
            executor.shutdown(wait=False)

    def __del__(self, _warn=warnings.warn):
        if not self.is_closed():
            _warn(f"unclosed event loop {self!r}", ResourceWarning, source=self)
            if not self.is_running():
                try:
                    self.close()
                except Exception:
                    pass

    # ------------------------------------------------- hooks of the C core

    def _vigil_debug_check(self, callback, method):
        if method is not None:
            self._check_thread()
        self._check_callback(callback, method or "call_soon_threadsafe")

    def _vigil_debug_handle(self, handle):
        handle._source_traceback = format_helpers.extract_stack(sys._getframe(1))

    def _vigil_callback_error(self, handle, exc):
        cb = format_helpers._format_callback_source(handle._callback, handle._args)
        context = {"message": f"Exception in callback {cb}", "exception": exc, "handle": handle}
        if handle._source_traceback:
            context["source_traceback"] = handle._source_traceback
        self.call_exception_handler(context)

    def _vigil_slow_callback(self, handle, dt):
        logger.warning("Executing %s took %.3f seconds", base_events._format_handle(handle), dt)

    def _timer_handle_cancelled(self, handle):
        pass  # vigil timers are stopped by their handle's cancel()

    def _write_to_self(self):
        self._vigil_wakeup()

    # ------------------------------------------------- readers and writers

    def _ensure_fd_no_transport(self, fd):
        fileno = fd
        if not isinstance(fileno, int):
            try:
                fileno = int(fileno.fileno())
            except (AttributeError, TypeError, ValueError):
                raise ValueError(f"Invalid file object: {fd!r}") from None
        # Read the WeakValueDictionary's own dict (its .data, {fd: weakref}): indexing
        # the mapping raises and catches a KeyError inside weakref.py for the usual
        # answer, no transport, and every sock_recv that waits comes through here.
        ref = self._transports.data.get(fileno)
        transport = ref() if ref is not None else None
        if transport is not None and not transport.is_closing():
            raise RuntimeError(f"File descriptor {fd!r} is used by transport {transport!r}")

    def add_reader(self, fd, callback, *args):
        self._ensure_fd_no_transport(fd)
        self._add_reader(fd, callback, *args)

    def remove_reader(self, fd):
        self._ensure_fd_no_transport(fd)
        return self._remove_reader(fd)

    def add_writer(self, fd, callback, *args):
        self._ensure_fd_no_transport(fd)
        self._add_writer(fd, callback, *args)

    def remove_writer(self, fd):
        self._ensure_fd_no_transport(fd)
        return self._remove_writer(fd)

    # --------------------------------------------------------------- signals

    def _read_signals(self):
        while True:
            try:
                data = self._sig_rsock.recv(4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if not data:
                return
            for signum in data:
                h = self._signal_handlers.get(signum)
                if h is None:
                    continue
                if h._cancelled:
                    self.remove_signal_handler(signum)
                else:
                    self.call_soon(h._callback, *h._args, context=h._context)

    def _check_signal(self, sig):
        if not isinstance(sig, int):
            raise TypeError(f"sig must be an int, not {sig!r}")
        if sig not in signal.valid_signals():
            raise ValueError(f"invalid signal number {sig}")

    def add_signal_handler(self, sig, callback, *args):
        if coroutines.iscoroutine(callback) or coroutines.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with add_signal_handler()")
        self._check_signal(sig)
        self._check_closed()
        try:
            prev = signal.set_wakeup_fd(self._sig_wsock.fileno(), warn_on_full_buffer=False)
        except (ValueError, OSError) as exc:
            raise RuntimeError(str(exc))
        if self._wakeup_prev is None and prev != self._sig_wsock.fileno():
            self._wakeup_prev = prev
        handle = events.Handle(callback, args, self, None)
        self._signal_handlers[sig] = handle
        try:
            signal.signal(sig, _sighandler_noop)
            signal.siginterrupt(sig, False)
        except OSError as exc:
            del self._signal_handlers[sig]
            if not self._signal_handlers and not self.is_running():
                self._restore_wakeup_fd()
            if exc.errno == errno.EINVAL:
                raise RuntimeError(f"sig {sig:d} cannot be caught")
            raise

    def remove_signal_handler(self, sig):
        self._check_signal(sig)
        try:
            del self._signal_handlers[sig]
        except KeyError:
            return False
        handler = signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL
        try:
            signal.signal(sig, handler)
        except OSError as exc:
            if exc.errno == errno.EINVAL:
                raise RuntimeError(f"sig {sig:d} cannot be caught")
            raise
        if not self._signal_handlers and not self.is_running():
            self._restore_wakeup_fd()
        return True

    # --------------------------------------------------------- socket calls

    def _sock_check(self, sock):
        _check_sock(sock)
        if self._debug and sock.gettimeout() != 0:
            raise ValueError("the socket must be non-blocking")

    def _sock_wait(self, fut, fd, writer, func):
        """Retries func() each time fd is ready until it completes fut."""
        self._ensure_fd_no_transport(fd)
        if writer:
            fut.add_done_callback(functools.partial(self._writer_done, fd, self._add_writer(fd, func)))
        else:
            fut.add_done_callback(functools.partial(self._reader_done, fd, self._add_reader(fd, func)))

    # A sock_* future's watcher goes when the future is done, unless a later call on the
    # same fd has put its own in its place meanwhile (that cancelled this one's handle): a
    # cancelled sock_recv's done callback runs a turn after the cancel, by when the next
    # sock_recv on the fd may be waiting, and removing its reader would leave it waiting
    # for ever (CPython's test_sock_lowlevel racing tests).
    def _reader_done(self, fd, handle, _fut):
        if not handle.cancelled():
            self._remove_reader(fd)

    def _writer_done(self, fd, handle, _fut):
        if not handle.cancelled():
            self._remove_writer(fd)

    def _sock_io(self, sock, writer, op):
        """A future completed by op() (None: would block, retry on readiness)."""
        fut = self.create_future()
        fd = sock.fileno()

        def attempt():
            if fut.done():
                return
            try:
                res = op()
            except (BlockingIOError, InterruptedError):
                return
            except (SystemExit, KeyboardInterrupt):
                raise
            except BaseException as exc:
                fut.set_exception(exc)
            else:
                fut.set_result(res)

        self._sock_wait(fut, fd, writer, attempt)
        return fut

    # sock_recv and sock_recv_into: the first attempt, and why it is sometimes skipped.
    #
    # Like asyncio's own loop, a receive is tried at once, so data already queued comes
    # back without a turn. But in request/response traffic (a reply is read right after
    # the request is sent) that attempt always fails: a system call and a
    # BlockingIOError raised and caught, per request, for nothing (uvloop never tries
    # first). So an fd whose last receive had to wait (self._recv_waited) is not tried
    # at once: its receive waits for readiness, which fires on the next turn if data is
    # already there. It is tried at once again after a receive that filled the whole
    # buffer (more is likely queued: a bulk stream). Either way the same bytes come
    # back.
    #
    # sock_recv, sock_recv_into and sock_sendall are C (csrc/sock.c): each returns a
    # coroutine-like awaitable (send/throw/close/__await__, a collections.abc.Coroutine,
    # so create_task takes it) that checks the socket as _sock_check does, tries the
    # call, and waits with itself as the fd's reader/writer: no Python frame per call.
    sock_recv = _SOCK_C["sock_recv"]
    sock_recv_into = _SOCK_C["sock_recv_into"]
    sock_sendall = _SOCK_C["sock_sendall"]

    async def sock_recvfrom(self, sock, bufsize):
        self._sock_check(sock)
        try:
            return sock.recvfrom(bufsize)
        except (BlockingIOError, InterruptedError):
            pass
        return await self._sock_io(sock, False, lambda: sock.recvfrom(bufsize))

    async def sock_recvfrom_into(self, sock, buf, nbytes=0):
        self._sock_check(sock)
        if not nbytes:
            nbytes = len(buf)
        try:
            return sock.recvfrom_into(buf, nbytes)
        except (BlockingIOError, InterruptedError):
            pass
        return await self._sock_io(sock, False, lambda: sock.recvfrom_into(buf, nbytes))

    async def sock_sendto(self, sock, data, address):
        self._sock_check(sock)
        try:
            return sock.sendto(data, address)
        except (BlockingIOError, InterruptedError):
            pass
        return await self._sock_io(sock, True, lambda: sock.sendto(data, address))

    async def sock_connect(self, sock, address):
        self._sock_check(sock)
        if sock.family == socket.AF_INET or (base_events._HAS_IPv6 and sock.family == socket.AF_INET6):
            resolved = await self._ensure_resolved(address, family=sock.family, type=sock.type,
                                                   proto=sock.proto, loop=self)
            _, _, _, _, address = resolved[0]
        try:
            sock.connect(address)
            return
        except (BlockingIOError, InterruptedError):
            pass
        fut = self.create_future()
        fd = sock.fileno()
        self._ensure_fd_no_transport(fd)
        handle = self._add_writer(fd, self._sock_connect_cb, fut, sock, address)
        fut.add_done_callback(functools.partial(self._writer_done, fd, handle))
        try:
            return await fut
        finally:
            fut = None  # break the cycle with the exception's traceback

    def _sock_connect_cb(self, fut, sock, address):
        """The writer's callback of a connect in progress. A bound method with its
        arguments, not a closure: the error's traceback keeps this frame, and a closure's
        frame would keep the future holding the error (a reference cycle; anyio's
        test_happy_eyeballs_refcycles, after CPython's own fix in selector_events)."""
        if fut.done():
            return
        try:
            err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err != 0:
                raise OSError(err, f"Connect call failed {address}")
        except (BlockingIOError, InterruptedError):
            pass
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            fut.set_exception(exc)
        else:
            fut.set_result(None)
        finally:
            fut = None

    async def sock_accept(self, sock):
        self._sock_check(sock)

        def op():
            conn, addr = sock.accept()
            conn.setblocking(False)
            return conn, addr

        try:
            return op()
        except (BlockingIOError, InterruptedError):
            pass
        return await self._sock_io(sock, False, op)

    async def _sock_sendfile_native(self, sock, file, offset, count):
        try:
            os.sendfile
        except AttributeError:
            raise asyncio.SendfileNotAvailableError("os.sendfile() is not available")
        try:
            fileno = file.fileno()
        except (AttributeError, io.UnsupportedOperation) as err:
            raise asyncio.SendfileNotAvailableError("not a regular file")
        try:
            fsize = os.fstat(fileno).st_size
        except OSError:
            raise asyncio.SendfileNotAvailableError("not a regular file")
        blocksize = count if count else fsize
        if not blocksize:
            return 0  # empty file
        blocksize = min(blocksize, 0xffff_ffff)
        end = offset + count if count else fsize
        state = {"offset": offset, "sent": 0}

        def op():
            while True:
                todo = min(end - state["offset"], blocksize)
                if todo <= 0:
                    return state["sent"]
                try:
                    n = os.sendfile(sock.fileno(), fileno, state["offset"], todo)
                except (BlockingIOError, InterruptedError):
                    if state["sent"] == 0 and not started[0]:
                        raise
                    raise
                except OSError as exc:
                    if state["sent"] == 0 and exc.errno in (errno.ENOTSOCK, errno.EINVAL, errno.ENOSYS,
                                                           errno.ENOTSUP if hasattr(errno, "ENOTSUP") else -1):
                        err = asyncio.SendfileNotAvailableError("os.sendfile call failed")
                        err.__cause__ = exc
                        raise err
                    raise
                if n == 0:
                    return state["sent"]  # EOF
                state["offset"] += n
                state["sent"] += n
                started[0] = True

        started = [False]
        try:
            try:
                return op()
            except (BlockingIOError, InterruptedError):
                pass
            return await self._sock_io(sock, True, op)
        finally:
            if state["sent"] > 0:
                file.seek(state["offset"])

    # ------------------------------------------------------------ transports

    def _make_socket_transport(self, sock, protocol, waiter=None, *, extra=None, server=None):
        self._ensure_fd_no_transport(sock)
        return _core._stream_transport(self, sock, protocol, waiter, extra, server)  # a SocketTransport

    def _make_ssl_transport(self, rawsock, protocol, sslcontext, waiter=None, *, server_side=False,
                            server_hostname=None, extra=None, server=None,
                            ssl_handshake_timeout=constants.SSL_HANDSHAKE_TIMEOUT,
                            ssl_shutdown_timeout=constants.SSL_SHUTDOWN_TIMEOUT, call_connection_made=True):
        self._ensure_fd_no_transport(rawsock)
        ssl_protocol = _ssl_protocol_class()(self, protocol, sslcontext, waiter, server_side, server_hostname,
                                            ssl_handshake_timeout=ssl_handshake_timeout,
                                            ssl_shutdown_timeout=ssl_shutdown_timeout,
                                            call_connection_made=call_connection_made)
        SocketTransport(self, rawsock, ssl_protocol, None, extra, server)
        return ssl_protocol._app_transport

    async def start_tls(self, transport, protocol, sslcontext, *, server_side=False, server_hostname=None,
                        ssl_handshake_timeout=None, ssl_shutdown_timeout=None):
        """Upgrade transport to TLS (asyncio's contract; the record path in C, tls.c)."""
        import ssl
        if not isinstance(sslcontext, ssl.SSLContext):
            raise TypeError(f"sslcontext is expected to be an instance of ssl.SSLContext, got {sslcontext!r}")
        if not getattr(transport, "_start_tls_compatible", False):
            raise TypeError(f"transport {transport!r} is not supported by start_tls()")
        waiter = self.create_future()
        tls = _ssl_protocol_class()(self, protocol, sslcontext, waiter, server_side, server_hostname,
                                    ssl_handshake_timeout=ssl_handshake_timeout,
                                    ssl_shutdown_timeout=ssl_shutdown_timeout, call_connection_made=False)
        # Paused before the swap: no bytes reach the TLS protocol before connection_made.
        transport.pause_reading()
        transport.set_protocol(tls)
        made = self.call_soon(tls.connection_made, transport)
        resumed = self.call_soon(transport.resume_reading)
        try:
            await waiter
        except BaseException:
            transport.close()
            made.cancel()
            resumed.cancel()
            raise
        return tls._app_transport

    def _make_datagram_transport(self, sock, protocol, address=None, waiter=None, extra=None):
        self._ensure_fd_no_transport(sock)
        return _DatagramTransport(self, sock, protocol, address, waiter, extra)

    def _make_read_pipe_transport(self, pipe, protocol, waiter=None, extra=None):
        if isinstance(pipe, _subprocess.PipeSocket):  # a child's stdio: the C transport
            return self._make_socket_transport(pipe, protocol, waiter, extra=dict(extra or {}, pipe=pipe))
        return unix_events._UnixReadPipeTransport(self, pipe, protocol, waiter, extra)

    def _make_write_pipe_transport(self, pipe, protocol, waiter=None, extra=None):
        if isinstance(pipe, _subprocess.PipeSocket):
            return self._make_socket_transport(pipe, _subprocess.StdinProtocol(protocol), waiter,
                                               extra=dict(extra or {}, pipe=pipe))
        return unix_events._UnixWritePipeTransport(self, pipe, protocol, waiter, extra)

    async def _make_subprocess_transport(self, protocol, args, shell, stdin, stdout, stderr, bufsize,
                                         extra=None, **kwargs):
        waiter = self.create_future()
        if _subprocess.vigil_can_start(kwargs):  # vigil_proc: exit by pidfd, pipes in C
            transp = _subprocess.VigilSubprocessTransport(self, protocol, args, shell, stdin, stdout, stderr,
                                                          bufsize, waiter=waiter, extra=extra, **kwargs)
        else:  # what vigil_proc cannot do (preexec_fn, pass_fds...): Popen, exit by pidfd
            transp = unix_events._UnixSubprocessTransport(self, protocol, args, shell, stdin, stdout, stderr,
                                                          bufsize, waiter=waiter, extra=extra, **kwargs)
            self._watch_child(transp.get_pid(), transp)
        try:
            await waiter
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException:
            transp.close()
            await transp._wait()
            raise
        return transp

    def _watch_child(self, pid, transp):
        """Reports the child's exit to transp: a pidfd watched by this loop, or (kernels
        before 5.3) a thread blocked in waitpid()."""
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            threading.Thread(target=self._wait_child_thread, args=(pid, transp), daemon=True).start()
            return
        self._add_reader(pidfd, self._child_exited, pid, pidfd, transp)

    def _child_exited(self, pid, pidfd, transp):
        self._remove_reader(pidfd)
        os.close(pidfd)
        transp._process_exited(self._reap(pid))

    @staticmethod
    def _reap(pid):
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            logger.warning("child process pid %d was reaped by someone else; returncode 255", pid)
            return 255
        return os.waitstatus_to_exitcode(status)

    def _wait_child_thread(self, pid, transp):
        rc = self._reap(pid)
        try:
            self.call_soon_threadsafe(transp._process_exited, rc)
        except RuntimeError:
            pass  # the loop was closed meanwhile

    # ------------------------------------------------------------ servers

    def _start_serving(self, protocol_factory, sock, sslcontext=None, server=None, backlog=100,
                       ssl_handshake_timeout=constants.SSL_HANDSHAKE_TIMEOUT,
                       ssl_shutdown_timeout=constants.SSL_SHUTDOWN_TIMEOUT):
        if sslcontext is None and sock.type == socket.SOCK_STREAM:
            # Accepting in C (csrc/server.c): vigil's listener (multishot accept on
            # io_uring), the protocol and the transport made in a copy of this context,
            # as asyncio's reader handle captures it here.
            listeners = self.__dict__.setdefault("_vigil_listeners", {})
            if sock.fileno() not in listeners:
                listeners[sock.fileno()] = _core.Listener(
                    self, sock, protocol_factory, contextvars.copy_context(), server, socket.socket,
                    SocketTransport, functools.partial(self._vigil_accept_error, sock, server))
            return
        self._add_reader(sock.fileno(), self._accept_ready, protocol_factory, sock, sslcontext, server,
                         backlog, ssl_handshake_timeout, ssl_shutdown_timeout)

    def _vigil_accept_error(self, sock, server, exc, protocol, accept_error):
        """A failure of csrc/server.c's listener: accept's own error (an OSError: vigil
        pauses and retries by itself after EMFILE/ENFILE), or the protocol factory's or
        the transport's (the connection is closed), reported as asyncio reports them."""
        if accept_error and exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
            self.call_exception_handler({
                "message": "socket.accept() out of system resource",
                "exception": exc,
                "socket": trsock.TransportSocket(sock),
            })
        elif accept_error:  # vigil stopped accepting (asyncio's reader would raise)
            self.call_exception_handler({
                "message": "Error accepting a connection",
                "exception": exc,
                "socket": trsock.TransportSocket(sock),
            })
        elif self._debug:  # as asyncio's _accept_connection2: reported in debug mode only
            context = {"message": "Error on transport creation for incoming connection", "exception": exc}
            if protocol is not None:
                context["protocol"] = protocol
            self.call_exception_handler(context)

    def _stop_serving(self, sock):
        listener = self.__dict__.get("_vigil_listeners", {}).pop(sock.fileno(), None)
        if listener is not None:
            listener.close()
        else:
            self._remove_reader(sock.fileno())
        self._flush_changes()  # io_uring: the poll (or accept) must let go of the file first
        sock.close()

    def _accept_ready(self, protocol_factory, sock, sslcontext, server, backlog, ssl_handshake_timeout,
                      ssl_shutdown_timeout):
        for _ in range(backlog):
            try:
                conn, addr = sock.accept()
                if self._debug:
                    logger.debug("%r got a new connection from %r: %r", server, addr, conn)
                conn.setblocking(False)
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    # Out of fds or memory: stop accepting for a while, say why.
                    self.call_exception_handler({
                        "message": "socket.accept() out of system resource",
                        "exception": exc,
                        "socket": trsock.TransportSocket(sock),
                    })
                    self._remove_reader(sock.fileno())
                    self.call_later(constants.ACCEPT_RETRY_DELAY, self._start_serving, protocol_factory, sock,
                                    sslcontext, server, backlog, ssl_handshake_timeout, ssl_shutdown_timeout)
                    return
                raise
            else:
                extra = {"peername": addr}
                self.create_task(self._accept_connection2(protocol_factory, conn, extra, sslcontext, server,
                                                          ssl_handshake_timeout, ssl_shutdown_timeout))

    async def _accept_connection2(self, protocol_factory, conn, extra, sslcontext, server,
                                  ssl_handshake_timeout, ssl_shutdown_timeout):
        protocol = None
        transport = None
        try:
            protocol = protocol_factory()
            waiter = self.create_future()
            if sslcontext:
                transport = self._make_ssl_transport(conn, protocol, sslcontext, waiter=waiter, server_side=True,
                                                     extra=extra, server=server,
                                                     ssl_handshake_timeout=ssl_handshake_timeout,
                                                     ssl_shutdown_timeout=ssl_shutdown_timeout)
            else:
                transport = self._make_socket_transport(conn, protocol, waiter=waiter, extra=extra, server=server)
            try:
                await waiter
            except BaseException:
                transport.close()
                raise
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            if self._debug:
                context = {"message": "Error on transport creation for incoming connection", "exception": exc}
                if protocol is not None:
                    context["protocol"] = protocol
                if transport is not None:
                    context["transport"] = transport
                self.call_exception_handler(context)

    # ---------------------------------------------------------- unix sockets

    async def create_unix_connection(self, protocol_factory, path=None, *, ssl=None, sock=None,
                                     server_hostname=None, ssl_handshake_timeout=None,
                                     ssl_shutdown_timeout=None):
        assert server_hostname is None or isinstance(server_hostname, str)
        if ssl:
            if server_hostname is None:
                raise ValueError("you have to pass server_hostname when using ssl")
        else:
            if server_hostname is not None:
                raise ValueError("server_hostname is only meaningful with ssl")
            if ssl_handshake_timeout is not None:
                raise ValueError("ssl_handshake_timeout is only meaningful with ssl")
            if ssl_shutdown_timeout is not None:
                raise ValueError("ssl_shutdown_timeout is only meaningful with ssl")
        if path is not None:
            if sock is not None:
                raise ValueError("path and sock can not be specified at the same time")
            path = os.fspath(path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0)
            try:
                sock.setblocking(False)
                await self.sock_connect(sock, path)
            except BaseException:
                sock.close()
                raise
        else:
            if sock is None:
                raise ValueError("no path and sock were specified")
            if sock.family != socket.AF_UNIX or sock.type != socket.SOCK_STREAM:
                raise ValueError(f"A UNIX Domain Stream Socket was expected, got {sock!r}")
            sock.setblocking(False)
        return await self._create_connection_transport(sock, protocol_factory, ssl, server_hostname,
                                                       ssl_handshake_timeout=ssl_handshake_timeout,
                                                       ssl_shutdown_timeout=ssl_shutdown_timeout)

    async def create_unix_server(self, protocol_factory, path=None, *, sock=None, backlog=100, ssl=None,
                                 ssl_handshake_timeout=None, ssl_shutdown_timeout=None, start_serving=True):
        if isinstance(ssl, bool):
            raise TypeError("ssl argument must be an SSLContext or None")
        if ssl_handshake_timeout is not None and not ssl:
            raise ValueError("ssl_handshake_timeout is only meaningful with ssl")
        if ssl_shutdown_timeout is not None and not ssl:
            raise ValueError("ssl_shutdown_timeout is only meaningful with ssl")
        if path is not None:
            if sock is not None:
                raise ValueError("path and sock can not be specified at the same time")
            path = os.fspath(path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            # A stale socket file left by a dead server is removed; anything else is not.
            if path[0] not in (0, "\x00"):
                try:
                    if stat.S_ISSOCK(os.stat(path).st_mode):
                        os.remove(path)
                except FileNotFoundError:
                    pass
                except OSError as err:
                    logger.error("Unable to check or remove stale UNIX socket %r: %r", path, err)
            try:
                sock.bind(path)
            except OSError as exc:
                sock.close()
                if exc.errno == errno.EADDRINUSE:
                    raise OSError(errno.EADDRINUSE, f"Address {path!r} is already in use") from None
                raise
            except BaseException:
                sock.close()
                raise
        else:
            if sock is None:
                raise ValueError("path was not specified, and no sock specified")
            if sock.family != socket.AF_UNIX or sock.type != socket.SOCK_STREAM:
                raise ValueError(f"A UNIX Domain Stream Socket was expected, got {sock!r}")
        sock.setblocking(False)
        server = base_events.Server(self, [sock], protocol_factory, ssl, backlog, ssl_handshake_timeout,
                                    ssl_shutdown_timeout)
        if start_serving:
            server._start_serving()
            await asyncio.sleep(0)
        return server

    # ------------------------------------------------------------- sendfile

    async def _sendfile_native(self, transp, file, offset, count):
        del self._transports[transp._sock_fd]
        resume_reading = transp.is_reading()
        transp.pause_reading()
        await transp._make_empty_waiter()
        try:
            return await self.sock_sendfile(transp._sock, file, offset, count, fallback=False)
        finally:
            transp._reset_empty_waiter()
            if resume_reading:
                transp.resume_reading()
            self._transports[transp._sock_fd] = transp


def _adopt_socket(transport, sock):
    """What a socket transport records of its socket (asyncio's extra info). The stream
    transport does the same in C (csrc/transport_new.c)."""
    extra = transport._extra
    extra["socket"] = trsock.TransportSocket(sock)
    try:
        extra["sockname"] = sock.getsockname()
    except OSError:
        extra["sockname"] = None
    if "peername" not in extra:
        try:
            extra["peername"] = sock.getpeername()
        except socket.error:
            extra["peername"] = None
    transport._sock = sock
    transport._sock_fd = sock.fileno()


class _SocketShell(transports._FlowControlMixin):
    """What the two socket transports' Python shells share: the C object in self._io does
    the I/O (TransportIO, DgramIO: the same close/_force_close/_detach/_set_limits
    calls), the shell holds the socket, the protocol and asyncio's flow-control state,
    and does the rare work (errors, connection_lost)."""

    __slots__ = ()

    def _state(self):
        """The state __repr__ shows: "closed", "closing" or "open"."""
        if self._sock is None:
            return "closed"
        return "closing" if self._io.is_closing() else "open"

    def get_protocol(self):
        return self._protocol

    def set_write_buffer_limits(self, high=None, low=None):
        self._set_write_buffer_limits(high=high, low=low)
        self._io._set_limits(self._high_water, self._low_water)
        self._maybe_pause_protocol()

    def close(self):
        self._io.close()

    def abort(self):
        self._io._force_close(None)

    def _force_close(self, exc):
        self._io._force_close(exc)

    def __del__(self, _warn=warnings.warn):
        if getattr(self, "_sock", None) is not None:  # None too if __init__ never ran
            _warn(f"unclosed transport {self!r}", ResourceWarning, source=self)
            self._io._detach()
            self._sock.close()

    def _fatal_error(self, exc, message="Fatal error on transport"):
        """A fatal error as asyncio reports it: an OSError is logged in debug mode,
        anything else goes to the loop's exception handler; then the transport closes."""
        if isinstance(exc, OSError):
            if self._loop.get_debug():
                logger.debug("%r: %s", self, message, exc_info=True)
        else:
            self._loop.call_exception_handler({"message": message, "exception": exc, "transport": self,
                                               "protocol": self._protocol})
        self._io._force_close(exc)

    def _lost_write(self, n):
        if n >= constants.LOG_THRESHOLD_FOR_CONNLOST_WRITES:
            logger.warning("socket.send() raised exception.")

    def _call_connection_lost(self, exc):
        try:
            self._protocol.connection_lost(exc)
        finally:
            self._io._detach()
            self._sock.close()
            self._sock = None
            self._protocol = None
            self._loop = None
            self._lost()

    def _lost(self):
        """After connection_lost: what the transport lets go of beside its socket."""


class SocketTransport(_SocketShell, transports.Transport):
    """A stream socket's transport. Its read/write path (a vigil completion socket on a
    dup of the fd: receives into the loop's buffer pool, sends that complete) is the C object
    in self._io (vigil._core.TransportIO); this shell gives it asyncio's class
    hierarchy and does the rare work (errors, connection_lost, flow-control calls).

    It is built in C (csrc/transport_new.c: the extra info, TCP_NODELAY, the TransportIO,
    server._attach, loop._transports, connection_made and the first read queued) by the
    accept path and _make_socket_transport, and by __init__ for any other caller."""

    # _io in a slot: the hot methods (write, is_closing, ...) are C method descriptors
    # of this class that read it at a fixed offset (TransportIO._bind_shell, below the class)
    __slots__ = ("_io", "__dict__", "__weakref__")

    _start_tls_compatible = True
    _sendfile_compatible = constants._SendfileMode.TRY_NATIVE

    def __init__(self, loop, sock, protocol, waiter=None, extra=None, server=None):
        _core._stream_transport_init(self, loop, sock, protocol, waiter, extra, server)

    def __repr__(self):
        info = [self.__class__.__name__]
        state = self._state()
        if state != "open":
            info.append(state)
        info.append(f"fd={self._sock_fd}")
        if self._sock is not None and self._loop is not None and not self._loop.is_closed():
            info.append("read=" + ("polling" if self._io.is_reading() else "idle"))
            info.append(f"write=<bufsize={self._io.get_write_buffer_size()}>")
        return "<{}>".format(" ".join(info))

    def set_protocol(self, protocol):
        # A pause belongs to the protocol that was told: the new one starts unpaused and is
        # paused by its own first write over the high-water mark. Keeping the flag would
        # send it a resume_writing() without a pause_writing() when the buffer drains;
        # here sends stay in the ring until their completions, so a transport is paused
        # far more often than the selector loop's when start_tls swaps in its SSLProtocol
        # (whose resume_writing asserts it was paused: CPython's test_ssl start_tls tests).
        self._protocol = protocol
        self._protocol_paused = False
        self._io._set_protocol(protocol, isinstance(protocol, protocols.BufferedProtocol))

    def writelines(self, list_of_data):
        self.write(b"".join(list_of_data))

    def write_eof(self):
        self._io.write_eof()

    def can_write_eof(self):
        return True

    def _write_error(self, exc):
        if self._empty_waiter is not None:
            self._empty_waiter.set_exception(exc)
        self._fatal_error(exc, "Fatal write error on socket transport")

    def _eof_received(self):
        if self._loop.get_debug():
            logger.debug("%r received EOF", self)
        try:
            keep_open = self._protocol.eof_received()
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            self._fatal_error(exc, "Fatal error: protocol.eof_received() call failed.")
            return
        if keep_open:
            self._io._stop_reading_eof()
        else:
            self.close()

    def _drained(self):
        """The write buffer became empty (called by the C write path)."""
        if self._empty_waiter is not None:
            self._empty_waiter.set_result(None)

    def _lost(self):
        server = self._server
        if server is not None:
            if sys.version_info >= (3, 13):
                server._detach(self)
            else:
                server._detach()
            self._server = None

    def _make_empty_waiter(self):
        if self._empty_waiter is not None:
            raise RuntimeError("Empty waiter is already set")
        self._empty_waiter = self._loop.create_future()
        self._io._set_empty_waiter(True)
        if not self._io.get_write_buffer_size():
            self._empty_waiter.set_result(None)
        return self._empty_waiter

    def _reset_empty_waiter(self):
        self._empty_waiter = None
        self._io._set_empty_waiter(False)


_core.TransportIO._bind_shell(SocketTransport)
_core._stream_shell(SocketTransport, trsock.TransportSocket, protocols.BufferedProtocol,
                    futures._set_result_unless_cancelled)


class _DatagramTransport(_SocketShell, transports.DatagramTransport):
    """UDP and Unix datagram sockets. The receive/send path is the C object in self._io
    (vigil._core.DgramIO: vigil's datagram receive stream on a dup of the fd, sendto tried
    at once and queued on vigil when it would block); this shell gives it asyncio's class
    hierarchy and does the rare work (connection_made/lost, fatal errors, host names)."""

    max_size = 256 * 1024

    def __init__(self, loop, sock, protocol, address=None, waiter=None, extra=None):
        super().__init__(extra, loop)
        _adopt_socket(self, sock)
        self._protocol = protocol
        self._address = address
        self._resolving = False
        io = self._io = _core.DgramIO(loop, sock, self, protocol, address, bool(self._extra["peername"]))
        io._set_limits(self._high_water, self._low_water)
        # The hot calls go straight to C (instance attributes over the class's methods).
        self.sendto = io.sendto
        self.get_write_buffer_size = io.get_write_buffer_size
        self.is_closing = io.is_closing
        loop._transports[self._sock_fd] = self
        loop.call_soon(protocol.connection_made, self)
        loop.call_soon(self._start_reading)  # only once connection_made() has run
        if waiter is not None:
            loop.call_soon(futures._set_result_unless_cancelled, waiter, None)

    def __repr__(self):
        return f"<{type(self).__name__} fd={self._sock_fd} {self._state()}>"

    def _start_reading(self):
        if not self._io.is_closing():
            self._io._start_reading()

    def set_protocol(self, protocol):
        self._protocol = protocol
        self._protocol_paused = False  # as SocketTransport.set_protocol: the pause was the old one's
        self._io._set_protocol(protocol)

    def is_closing(self):
        return self._io.is_closing()

    def get_write_buffer_size(self):
        return self._io.get_write_buffer_size()

    def sendto(self, data, addr=None):
        self._io.sendto(data, addr)

    def _callback_error(self, exc):
        """A protocol callback run by the C path raised: as a Handle's exception."""
        self._loop.call_exception_handler({"message": f"Exception in callback of {self!r}", "exception": exc,
                                           "transport": self, "protocol": self._protocol})

    def _sendto_slow(self, data, addr):
        """An address the C path does not parse: a host name (resolved, as the socket module
        does, then sent by the C path), or one the socket module rejects (its error)."""
        try:
            if (not self._resolving and isinstance(addr, tuple) and len(addr) >= 2 and isinstance(addr[0], str)
                    and type(addr[1]) is int and 0 <= addr[1] <= 65535
                    and self._sock.family in (socket.AF_INET, socket.AF_INET6)):
                resolved = socket.getaddrinfo(addr[0], addr[1], self._sock.family, socket.SOCK_DGRAM)[0][4]
                if resolved[0] != addr[0]:
                    self._resolving = True
                    try:
                        return self._io.sendto(data, resolved[:len(addr)] if len(addr) > 2 else resolved[:2])
                    finally:
                        self._resolving = False
            self._sock.sendto(data, addr)
        except (BlockingIOError, InterruptedError):
            pass  # a datagram the socket had no room for, sent outside the queue: dropped
        except OSError as exc:
            self._protocol.error_received(exc)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:
            self._fatal_error(exc, "Fatal write error on datagram transport")


class EventLoopPolicy(asyncio.DefaultEventLoopPolicy):
    """asyncio.set_event_loop_policy(vigil.EventLoopPolicy()) makes new loops vigil's."""

    def __init__(self, **loop_kwargs):
        super().__init__()
        self._loop_kwargs = loop_kwargs

    def _loop_factory(self):
        return Loop(**self._loop_kwargs)


def new_event_loop(**kwargs):
    """A new vigil loop: new_event_loop(backend=None|'uring'|'epoll'|'poll', precise=False).
    Usable as asyncio.run(main(), loop_factory=vigil.new_event_loop) (3.12+) or
    asyncio.Runner(loop_factory=vigil.new_event_loop) (3.11+)."""
    return Loop(**kwargs)
