"""Running playground scenarios from the web app: a small pool of worker processes, and a gate
that keeps runs from taking the threads and the cores the rule pages need.

The design, and why:

- **Each run happens in a worker process** (:mod:`kb.engine.playworker`), never in the web
  worker: the kernel bounds its CPU time (``ITIMER_PROF``, 200 ms by default, then
  ``RLIMIT_CPU`` as a backstop), its memory (``RLIMIT_AS``) and its priority (``nice``), and
  this side adds a wall-clock timeout after which the process is killed and replaced. A hostile
  scenario can neither hang nor bloat the web worker, nor take it down with it. Workers are
  started with :class:`subprocess.Popen` (fork + exec of a fresh interpreter that imports the
  engine only), which is safe from the web worker's threads where a bare ``fork`` is not, and
  lazily, so a server that nobody plays on starts none. Each gunicorn worker has its own pool.
- **A gate, not a long queue.** A waitress worker has four threads: a run waiting for a worker
  process holds one. So at most :attr:`RunPool.size` runs are running and :attr:`RunPool.queue`
  are waiting (each waits at most :attr:`RunPool.wait` seconds) in one web worker; any further
  run is answered at once with 429 and ``Retry-After`` (:class:`Busy`), and at least two threads
  always stay for the pages. A process that cannot be started is a 503 (:class:`Unavailable`).
- **Priority.** Worker processes run at ``nice`` 10: when runs and pages compete for the
  cores, the kernel gives the pages about nine tenths of them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import struct
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from kb.engine.playworker import not_run

log = logging.getLogger(__name__)

_LENGTH = struct.Struct(">I")
#: The largest answer read from a worker (2,000 events of a few hundred bytes each, and more).
MAX_ANSWER = 16 << 20
_KB_ROOT = str(Path(__file__).resolve().parents[2])


class Busy(Exception):
    """Every worker is taken and the waiting line is full: try again after ``retry_after`` s."""

    def __init__(self, retry_after: int = 1) -> None:
        super().__init__("every playground worker is busy")
        self.retry_after = retry_after


class Unavailable(Exception):
    """A worker process could not be started or answered nothing sensible."""


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, cpu_ms: int, memory_mb: int, nice: int, start_timeout: float) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_KB_ROOT, env.get("PYTHONPATH", "")) if p)
        command = [
            sys.executable,
            "-m",
            "kb.engine.playworker",
            f"--cpu-ms={cpu_ms}",
            f"--memory-mb={memory_mb}",
            f"--nice={nice}",
        ]
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                close_fds=True,
            )
        except OSError as err:
            raise Unavailable(f"cannot start a playground worker: {err}") from None
        self.runs = 0
        ready = self._read(time.monotonic() + start_timeout)
        if not ready or not ready.get("ready"):
            self.kill()
            raise Unavailable("a playground worker did not start")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()

    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a request and read its answer; ``{"outcome": "ended"}`` when the process ended
        without one, ``{"outcome": "timeout"}`` when the wall clock ran out (it is killed)."""
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(_LENGTH.pack(len(body)) + body)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self.kill()
            return {"outcome": "ended"}
        answer = self._read(time.monotonic() + timeout)
        if answer is None:
            # Ended on its own (a limit of the kernel's: RLIMIT_AS, RLIMIT_CPU), or still running
            # when the wall clock ran out; killed either way.
            ended = self.proc.poll() is not None
            self.kill()
            return {"outcome": "ended" if ended else "timeout"}
        self.runs += 1
        return answer

    def _read(self, deadline: float) -> dict[str, Any] | None:
        head = self._exact(_LENGTH.size, deadline)
        if head is None:
            return None
        (size,) = _LENGTH.unpack(head)
        if size > MAX_ANSWER:
            return None
        body = self._exact(size, deadline)
        if body is None:
            return None
        try:
            value = json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return None
        return value if isinstance(value, dict) else None

    def _exact(self, size: int, deadline: float) -> bytes | None:
        """``size`` bytes from the worker before ``deadline`` (None: too late, or it ended)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks: list[bytes] = []
        left = size
        while left:
            wait = deadline - time.monotonic()
            if wait <= 0:
                return None
            try:
                ready, _, _ = select.select([fd], [], [], wait)
            except (OSError, ValueError):
                return None
            if not ready:
                return None
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)


def _kill_all(workers: list[_Worker]) -> None:
    for worker in list(workers):
        worker.kill()


class RunPool:
    """Up to ``size`` worker processes, ``queue`` runs waiting for one at most ``wait`` s each."""

    def __init__(
        self,
        size: int = 1,
        queue: int = 1,
        wait: float = 2.0,
        timeout: float = 10.0,
        cpu_ms: int = 200,
        memory_mb: int = 512,
        nice: int = 10,
        start_timeout: float = 30.0,
    ) -> None:
        self.size, self.queue, self.wait, self.timeout = size, queue, wait, timeout
        self.cpu_ms, self.memory_mb, self.nice = cpu_ms, memory_mb, nice
        self.start_timeout = start_timeout
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)
        self._waiting = 0
        self._idle: list[_Worker] = []
        self._pid = os.getpid()
        # Idle workers end with the pool (an app dropped by a test), else after 5 idle minutes.
        weakref.finalize(self, _kill_all, self._idle)

    def run(self, scenario: str, rule_url: str) -> dict[str, Any]:
        """The worker's answer for ``scenario`` (see :mod:`kb.engine.playworker`); raises
        :class:`Busy` when the gate is full, :class:`Unavailable` when no worker can run it.
        A run the wall clock stopped answers ``outcome: "timeout"``, one whose process ended
        (killed by a kernel limit) ``"ended"``."""
        with self._lock:
            if self._waiting >= self.size + self.queue:
                raise Busy()
            self._waiting += 1
        try:
            if not self._slots.acquire(timeout=self.wait):
                raise Busy()
            try:
                return self._run(scenario, rule_url)
            finally:
                self._slots.release()
        finally:
            with self._lock:
                self._waiting -= 1

    def _run(self, scenario: str, rule_url: str) -> dict[str, Any]:
        worker = self._take()
        answer = worker.call({"scenario": scenario, "rule_url": rule_url}, self.timeout)
        if answer.get("outcome") in ("ended", "timeout"):
            return {**answer, **not_run(), "cpu_ms": None}
        if answer.get("outcome") in ("done", "cpu") and not answer.get("last") and worker.alive():
            with self._lock:
                self._idle.append(worker)
        else:
            worker.kill()
        return answer

    def _take(self) -> _Worker:
        with self._lock:
            if os.getpid() != self._pid:  # a forked copy of the pool: its workers are not ours
                self._idle.clear()
                self._pid = os.getpid()
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.kill()
        return _Worker(self.cpu_ms, self.memory_mb, self.nice, self.start_timeout)

    def close(self) -> None:
        """Stop every idle worker (those running end when their run does)."""
        with self._lock:
            idle = list(self._idle)
            self._idle.clear()  # the same list the finalizer holds
        for worker in idle:
            worker.kill()

    def busy(self) -> int:
        """Runs running or waiting now."""
        return self._waiting
