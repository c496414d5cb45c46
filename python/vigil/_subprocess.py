"""The loop's subprocess transport: the child started by vigil (vigil._core.Process over
vigil_proc_start: clone with CLONE_VM | CLONE_VFORK | CLONE_PIDFD), its exit seen
through its pidfd by vigil's watcher (no SIGCHLD handler, no thread, no waitpid(-1)),
its pipes vigil's socketpairs carried by the loop's C stream transport.

asyncio's SubprocessProtocol semantics are BaseSubprocessTransport's (this subclasses
it): pipe_data_received, pipe_connection_lost, process_exited, get_returncode,
send_signal/terminate/kill, and connection_lost once the child has exited and every
pipe is closed.

What vigil_proc cannot do falls back to asyncio's own transport (subprocess.Popen, with
the exit still watched by a pidfd on this loop): preexec_fn, pass_fds, close_fds=False,
umask, extra_groups, restore_signals=False; and a stdin/stdout/stderr that is a fd
number or file (those work here as well; listed only to say they are supported).

Differences from Popen's child a program may see: the child's pipes are AF_UNIX
stream sockets (a socketpair, as asyncio itself uses for stdin on AIX), not FIFOs;
every signal disposition is reset to SIG_DFL in the child (Popen's restore_signals
resets only SIGPIPE, SIGXFZ, SIGXFSZ), and every fd above 2 is closed (close_fds=True,
Popen's default)."""

import grp
import os
import pwd
import select
import socket
import subprocess

from asyncio import base_subprocess, protocols

from . import _core

# Popen keywords and the values vigil_proc does as Popen does; anything else: Popen.
_DEFAULTS = {"preexec_fn": None, "close_fds": True, "pass_fds": (), "restore_signals": True,
             "umask": -1, "extra_groups": None, "startupinfo": None, "creationflags": 0,
             "universal_newlines": False, "text": None, "encoding": None, "errors": None,
             "pipesize": -1}
_HANDLED = {"executable", "env", "cwd", "start_new_session", "process_group", "user", "group"}


# True: every child through asyncio's Popen transport (the tests of that path set it).
FORCE_POPEN = False


def vigil_can_start(kwargs):
    """True if vigil_proc can start the child these Popen keywords describe."""
    if FORCE_POPEN:
        return False
    for k, v in kwargs.items():
        if k in _HANDLED:
            continue
        if k not in _DEFAULTS:
            return False
        d = _DEFAULTS[k]
        if k == "pass_fds":
            if v:
                return False
        elif v != d:
            return False
    return True


class _Popen:
    """What asyncio (and users, through get_extra_info('subprocess')) use of a Popen:
    pid, returncode, args, stdin/stdout/stderr (here the parent's sockets), poll(),
    send_signal/terminate/kill."""

    def __init__(self, args, core, stdin, stdout, stderr):
        self.args = args
        self._core = core
        self.pid = core.pid
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self._rc = None

    @property
    def returncode(self):
        return self._rc if self._rc is not None else self._core.returncode

    @returncode.setter
    def returncode(self, rc):
        self._rc = rc

    def poll(self):
        """The returncode, or None while the child runs. Looks at the child through its
        pidfd without reaping it (vigil reaps it and the loop reports the exit)."""
        rc = self.returncode
        if rc is None:
            pidfd = self._core.pidfd
            if pidfd >= 0:
                try:
                    r = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                except ChildProcessError:
                    r = None
                if r is not None:
                    rc = -r.si_status if r.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else r.si_status
                    self._rc = rc
        return rc

    def wait(self, timeout=None):
        """Blocks (as Popen.wait) until the child exits; subprocess.TimeoutExpired."""
        if self.poll() is None:
            pidfd = self._core.pidfd
            if pidfd >= 0:
                p = select.poll()
                p.register(pidfd, select.POLLIN)
                if not p.poll(None if timeout is None else int(timeout * 1000)):
                    raise subprocess.TimeoutExpired(self.args, timeout)
        return self.poll()

    def send_signal(self, sig):
        if self.returncode is None:
            self._core.send_signal(sig)

    def terminate(self):
        self.send_signal(15)

    def kill(self):
        self.send_signal(9)

    def __repr__(self):
        return f"<vigil child pid={self.pid} returncode={self.returncode}>"


def _stdio_entry(i, spec, opened):
    """(mode, fd) for the child's fd i from Popen's stdin/stdout/stderr value."""
    if spec is None:
        return (_core.PROC_INHERIT, 0)
    if spec == subprocess.PIPE:
        return (_core.PROC_SOCKET, 0)
    if spec == subprocess.DEVNULL:
        fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        opened.append(fd)
        return (_core.PROC_FD, fd)
    if spec == subprocess.STDOUT:
        if i != 2:
            raise ValueError("STDOUT can only be used for stderr")
        return (_core.PROC_AS, 1)
    if isinstance(spec, int):
        return (_core.PROC_FD, spec)
    return (_core.PROC_FD, spec.fileno())


class VigilSubprocessTransport(base_subprocess.BaseSubprocessTransport):

    def _start(self, args, shell, stdin, stdout, stderr, bufsize, **kwargs):
        if shell:
            argv = ["/bin/sh", "-c", args] if isinstance(args, (str, bytes)) else ["/bin/sh", "-c", *args]
        elif isinstance(args, (str, bytes, os.PathLike)):
            argv = [args]
        else:
            argv = list(args)
        argv = [os.fsencode(a) for a in argv]
        executable = kwargs.get("executable")
        file = os.fsencode(executable) if executable is not None else argv[0]
        flags = 0
        if b"/" not in file:
            flags |= _core.PROC_SEARCH_PATH
        env = kwargs.get("env")
        envp = None
        if env is not None:
            envp = []
            for k, v in env.items():
                k, v = os.fsencode(k), os.fsencode(v)
                if b"=" in k or b"\0" in k or b"\0" in v:
                    raise ValueError("illegal environment variable name")
                envp.append(k + b"=" + v)
        cwd = kwargs.get("cwd")
        cwd = os.fsencode(cwd) if cwd is not None else None
        pgid = 0
        if kwargs.get("start_new_session"):
            flags |= _core.PROC_SETSID
        pg = kwargs.get("process_group")
        if pg is not None and pg >= 0:
            flags |= _core.PROC_SETPGID
            pgid = pg
        uid = gid = 0
        user, group = kwargs.get("user"), kwargs.get("group")
        if group is not None:
            gid = grp.getgrnam(group).gr_gid if isinstance(group, str) else int(group)
            flags |= _core.PROC_SETGID
        if user is not None:
            uid = pwd.getpwnam(user).pw_uid if isinstance(user, str) else int(user)
            flags |= _core.PROC_SETUID
        opened = []
        try:
            stdio = tuple(_stdio_entry(i, s, opened) for i, s in enumerate((stdin, stdout, stderr)))
            core = _core.Process(self._loop, file, argv, envp, cwd, stdio, flags, pgid, uid, gid,
                                 self._vigil_exited)
        finally:
            for fd in opened:
                os.close(fd)
        socks = [PipeSocket(fileno=fd) if fd >= 0 else None for fd in core.stdio_fds()]
        self._proc = _Popen(args, core, *socks)

    def _vigil_exited(self, returncode):
        if self._proc is None or self._returncode is not None:
            return  # the transport is finished already
        self._process_exited(returncode)


class PipeSocket(socket.socket):
    """The parent's end of a child's stdio socketpair: connect_read_pipe and
    connect_write_pipe (called by BaseSubprocessTransport._connect_pipes) carry it on the
    loop's C stream transport where asyncio would make a pipe transport."""

    __slots__ = ()


class StdinProtocol(protocols.Protocol):
    """stdin's protocol on its socket (vigil._loop's _make_write_pipe_transport puts it
    between the C transport and asyncio's WriteSubprocessPipeProto, so that CPython's
    own _connect_pipes, of whatever version, runs unchanged): what the child might write
    back into its stdin is dropped; its end closing (it closed stdin or exited) ends the
    pipe, as a pipe's reader closing ends asyncio's write pipe transport."""

    __slots__ = ("_proto",)

    def __init__(self, proto):
        self._proto = proto

    def connection_made(self, transport):
        self._proto.connection_made(transport)

    def connection_lost(self, exc):
        self._proto.connection_lost(exc)

    def pause_writing(self):
        self._proto.pause_writing()

    def resume_writing(self):
        self._proto.resume_writing()

    def data_received(self, data):
        pass

    def eof_received(self):
        return False
