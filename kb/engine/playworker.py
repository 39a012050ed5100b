"""A process that runs playground scenarios one after the other, each within a CPU-time budget,
in an address space of bounded size, at the lowest CPU priority: ``python -m
kb.engine.playworker``. The web app keeps a few of them (:mod:`kb.web.playrun`).

Why a process of its own: a scenario is written by anyone, and the engine is Python, so a
thread cannot be stopped, a memory blow-up would take the web worker with it, and the CPU it
burns would be taken from the rule pages. Here each of those is bounded by the kernel:

- **CPU time.** ``ITIMER_PROF`` (the process's user + system time) sends SIGPROF after
  ``--cpu-ms`` (200 ms): its handler raises :class:`CpuLimit` between two bytecodes, the run
  stops and the answer says so. A C call that ignores signals (none is known in the engine) is
  caught by ``RLIMIT_CPU`` two seconds later (SIGXCPU ends the process), and the web side's
  wall-clock timeout kills the process in any case.
- **Memory.** ``RLIMIT_AS`` (``--memory-mb``): an allocation past it is a MemoryError, caught
  and answered.
- **Priority.** ``nice`` 10 (``--nice``): under load the kernel gives the web workers the CPU first, so a
  flood of runs slows runs, not rule pages.

After a run stopped for memory or by an unexpected error the process ends once it has answered
(what was interrupted may have left a cache half-written); the web side starts another. A run
stopped for CPU time only loses its own game, so the process goes on (a flood of the heaviest
scenarios would otherwise pay for a new interpreter on every run). It ends too when its parent
does (``PR_SET_PDEATHSIG``, and end of file on its input).

Protocol on stdin/stdout: frames of a 4-byte big-endian length and a UTF-8 JSON object. The
worker first writes ``{"ready": true}``; then to each request ``{"scenario": str, "rule_url":
"/en/rules/{}"}`` it answers :meth:`kb.engine.playground.PlayResult.to_dict` plus ``outcome``
(``done``, ``cpu``, ``memory`` or ``error``), ``cpu_ms``, and each event's ``links`` (the rule
numbers with a page get ``rule_url`` filled in; others, "MTR 4.2", get no URL).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import select
import signal
import struct
import sys
import traceback
from typing import Any, BinaryIO

from kb.engine.playground import run_scenario
from kb.knowledge.model import parsed_number

_LENGTH = struct.Struct(">I")
#: The largest frame read (a scenario is at most 20,000 characters; the web side checks first).
MAX_FRAME = 1 << 20
#: Runs before a worker ends and is replaced (what the engine caches stays small).
MAX_RUNS = 1000
#: Seconds without a request after which a worker ends (a quiet server keeps no process).
IDLE_SECONDS = 300.0


class CpuLimit(Exception):
    """The run used up its CPU time."""


def not_run() -> dict[str, Any]:
    """What a run that did not finish answers besides its outcome (the playground's pool says the
    same of a run it stopped): a fresh dict each time, as callers add to it."""
    return {
        "passed": False,
        "started": False,
        "problems": [],
        "events": [],
        "events_left_out": 0,
        "lines": 0,
    }


def read_frame(stream: BinaryIO) -> dict[str, Any] | None:
    """The next JSON object, or None at end of input."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    if size > MAX_FRAME:
        return None
    body = stream.read(size)
    if len(body) < size:
        return None
    value = json.loads(body.decode("utf-8"))
    return value if isinstance(value, dict) else {}


def frame(value: dict[str, Any]) -> bytes:
    """A JSON object as one frame."""
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return _LENGTH.pack(len(body)) + body


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _on_sigprof(_signum: int, _frame: Any) -> None:
    raise CpuLimit


def limit_process(memory_mb: int, nice: int = 19) -> None:
    """Bound this process: address space, priority, and end with the parent (Linux)."""
    if memory_mb > 0:
        limit = memory_mb << 20
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    with contextlib.suppress(OSError):
        os.nice(nice)
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    signal.signal(signal.SIGPROF, _on_sigprof)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal stops the server first


def _links(numbers: list[str], rule_url: str) -> list[dict[str, Any]]:
    return [
        {"number": n, "url": rule_url.replace("{}", n) if parsed_number(n) else None}
        for n in numbers
    ]


def run_one(request: dict[str, Any], cpu_ms: int) -> tuple[dict[str, Any], bool]:
    """Run one request within ``cpu_ms`` of CPU: (the answer, whether this process must end)."""
    scenario = request.get("scenario")
    rule_url = request.get("rule_url")
    rule_url = rule_url if isinstance(rule_url, str) else "/en/rules/{}"
    start = _cpu_seconds()
    # The hard limit stays where it was (unlimited): only the soft one moves, run after run.
    soft = int(start) + 2 + max(1, cpu_ms // 1000)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    outcome, end = "done", False
    answer: dict[str, Any] = {}
    try:
        signal.setitimer(signal.ITIMER_PROF, cpu_ms / 1000)
        try:
            answer = run_scenario(scenario if isinstance(scenario, str) else "").to_dict()
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        for event in answer["events"]:
            event["links"] = _links(event["rules"], rule_url)
    except CpuLimit:  # the process stays: the interrupted game was this run's alone
        outcome = "cpu"
    except MemoryError:
        outcome, end = "memory", True
    except RecursionError:
        outcome, end = "error", True
    except Exception as exc:  # an engine bug: logged here, answered as a failure
        print(
            f"playworker: {type(exc).__name__}: {exc} on {str(scenario)[:4000]!r}", file=sys.stderr
        )
        traceback.print_exc(file=sys.stderr)
        outcome, end = "error", True
    if outcome != "done":
        answer = not_run()
    answer["outcome"] = outcome
    answer["cpu_ms"] = round((_cpu_seconds() - start) * 1000, 1)
    return answer, end


def serve(stdin: BinaryIO, stdout: BinaryIO, cpu_ms: int, idle: float = IDLE_SECONDS) -> None:
    """Answer requests until end of input, ``idle`` seconds without one, a run stopped for
    memory or by an error, or :data:`MAX_RUNS`."""
    run_scenario("players: Alice, Bob\nAlice passes")  # load the card pool before the first run
    stdout.write(frame({"ready": True, "pid": os.getpid()}))
    stdout.flush()
    for run in range(MAX_RUNS):
        try:  # the web side sends one request at a time, so nothing waits in stdin's buffer
            if not select.select([stdin], [], [], idle)[0]:
                return  # idle too long: the web side starts another when it needs one
        except (OSError, ValueError):
            pass
        try:
            request = read_frame(stdin)
        except (ValueError, UnicodeDecodeError):
            request = {}
        if request is None:
            return
        answer, end = run_one(request, cpu_ms)
        end = end or run == MAX_RUNS - 1
        answer["last"] = end  # the web side then takes no further request to this process
        try:
            stdout.write(frame(answer))
            stdout.flush()
        except MemoryError:
            return
        if end:
            return


def main(argv: list[str] | None = None) -> int:
    """The worker's entry point."""
    ap = argparse.ArgumentParser(prog="python -m kb.engine.playworker")
    ap.add_argument("--cpu-ms", type=int, default=200)
    ap.add_argument("--memory-mb", type=int, default=512)
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--idle", type=float, default=IDLE_SECONDS)
    args = ap.parse_args(argv)
    limit_process(args.memory_mb, args.nice)
    # Frames go to the original stdout only: anything printed goes to stderr, never into them.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(sys.stdin.buffer, out, args.cpu_ms, args.idle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
