"""Start-to-exit time of the lookup commands (``kb card NAME``, ``kb rule NUMBER``) against the
interpreter's own start (``python -c pass``) and ``kb --version``, run alternately in one run.

    KB_INSTANCE=/tmp/kb-x python tests/bench/bench_cli_start.py [--runs N] [--card NAME]
        [--ref CHECKOUT]

The instance must be built with a card file (``kb build --cards PATH``). Prints the median and
the spread of each command's wall time over ``--runs`` runs (the commands alternate, so a busy
machine slows them alike) and each median's ratio to ``python -c pass``. Target (issue 24):
``kb card`` <= 0.2 s (wall, on an idle machine; the CPU columns, user + system time of
the process, are the figure to compare on a busy one). Why: a card lookup should feel instant from a shell or an editor; it reads
one indexed row, so what it costs is Python's start and the modules it imports. ``--ref``
times the same two commands with another checkout's code (e.g. main) in the same loop.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv`` (its output
    discarded; a failure stops the bench). CPU time moves less than wall time on a busy
    machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # `python -m kb` imports kb from its working folder first: run it in the checkout timed
    done = subprocess.run(argv, env=env, cwd=env["PYTHONPATH"], capture_output=True, check=False)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')[:300]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--card", default="Llanowar Elves")
    parser.add_argument("--rule", default="702.9a")
    parser.add_argument("--ref", help="another checkout whose kb to time alongside (main)")
    args = parser.parse_args(argv)
    if not os.environ.get("KB_INSTANCE"):
        raise SystemExit("set KB_INSTANCE to an instance built with `kb build --cards PATH`")
    # As installed: the modules' bytecode cached (the first, untimed run writes it, in a
    # folder of its own: no checkout is written to), not each module compiled from source at
    # every start as PYTHONDONTWRITEBYTECODE would have it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="kb-bench-pycache-")
    py = sys.executable
    commands = {
        "python -c pass": [py, "-c", "pass"],
        "kb --version": [py, "-m", "kb", "--version"],
        f"kb rule {args.rule}": [py, "-m", "kb", "rule", args.rule],
        f"kb card {args.card!r}": [py, "-m", "kb", "card", args.card],
    }
    envs = {name: env for name in commands}
    if args.ref:
        ref_env = {**env, "PYTHONPATH": str(Path(args.ref).resolve())}
        for name in list(commands)[2:]:
            commands[f"{name} (ref)"] = commands[name]
            envs[f"{name} (ref)"] = ref_env
    for name, command in commands.items():  # warm the file cache, check each command works
        timed(command, envs[name])
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            wall, cpu = timed(command, envs[name])
            times[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(times["python -c pass"])
    base_cpu = statistics.median(cpus["python -c pass"])
    print(f"{'command':32} {'wall s':>7} {'min s':>6} {'x py':>5} {'CPU s':>6} {'x py':>5}")
    for name, runs in times.items():
        wall, cpu = statistics.median(runs), statistics.median(cpus[name])
        print(
            f"{name:32} {wall:7.3f} {min(runs):6.3f} {wall / base:5.2f} {cpu:6.3f}"
            f" {cpu / base_cpu:5.2f}"
        )
    card = statistics.median(times[f"kb card {args.card!r}"])
    print(f"\nkb card: {card:.3f} s (target <= 0.2 s: {'met' if card <= 0.2 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
