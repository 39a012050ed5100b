"""Work handed to a forked child process, so that a build uses a second core.

The parts of a build that take longest are pure Python (Whoosh writing its files, the search
postings, the database's history), and a thread would hold the interpreter lock. A child made
with ``fork`` starts with the parent's memory as it is (nothing is pickled but the result), runs
one function, sends its result back through a pipe and leaves with ``os._exit`` (none of the
parent's cleanup runs twice). Where ``fork`` is missing, a single core is available, or the
caller runs other threads (a lock one of them holds would stay held in the child for ever), the
function simply runs in the caller, so the result never depends on the machine.

The child must not use what the parent holds open and keeps using (a SQLite connection in
particular): the callers hand it plain data and files of its own.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any


def cores() -> int:
    """Cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def alone() -> bool:
    """Whether the calling thread is the process's only one (the only safe time to fork)."""
    return threading.active_count() == 1


class Forked:
    """``fn(*args)`` started in a child process (or run at once without a second core);
    :meth:`result` waits for it and returns its value or raises its exception."""

    @staticmethod
    def available() -> bool:
        """Whether ``Forked`` would start a child now (else the function runs in the caller)."""
        return hasattr(os, "fork") and cores() >= 2 and alone()

    def __init__(self, fn: Callable[..., Any], *args: Any, fork: bool | None = None) -> None:
        """``fork``: the caller's own :meth:`available` answer, when it prepared for a child
        already (asking twice could answer twice differently); None: ask now."""
        self._pid: int | None = None
        self._value: Any = None
        if not (self.available() if fork is None else fork):
            self._value = fn(*args)
            return
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                _die_with(parent)
                os.close(read)
                try:
                    data = pickle.dumps((True, fn(*args)))
                    code = 0
                except BaseException as exc:
                    traceback.print_exc()
                    data = _pickled_error(exc)
                with os.fdopen(write, "wb") as out:
                    out.write(data)
            finally:
                sys.stderr.flush()
                os._exit(code)
        os.close(write)
        self._pid = pid
        self._read = read

    def result(self) -> Any:
        """The function's value once it has finished (its exception raised here if it failed)."""
        if self._pid is None:
            return self._value
        try:
            with os.fdopen(self._read, "rb") as handle:
                data = handle.read()
        finally:
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
        if not data:
            raise RuntimeError(f"a build process ended without a result (status {status})")
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        self._value = value
        return value

    def cancel(self) -> None:
        """Stop the child if it still runs (the caller failed and will not use the result)."""
        if self._pid is None:
            return
        import signal

        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        os.waitpid(self._pid, 0)
        os.close(self._read)
        self._pid = None


def _die_with(parent: int) -> None:
    """Make the calling child end when ``parent`` does: a build killed outright (``kill -9``)
    must not leave a child holding the instance's lock or writing into a folder the next build
    removes. Linux says so with ``PR_SET_PDEATHSIG``; elsewhere the child runs to its end."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _pickled_error(exc: BaseException) -> bytes:
    """The exception as the parent can raise it (a RuntimeError naming it if it cannot be sent)."""
    try:
        data = pickle.dumps((False, exc))
        pickle.loads(data)
        return data
    except Exception:
        return pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
