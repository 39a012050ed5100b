"""Benchmark at archive scale (every edition of cr-en and cr-en-archive): the targets of the store.

Run: ``python tests/bench/bench_archive.py [--work DIR] [--duration 20] [--skip-builds |
--builds-only]``.

Each figure comes with its ratio to a reference measured in the same run, because absolute
figures move with the machine's load:

- builds (full from scratch, one edition added (the newest, and one in the middle), unchanged):
  ratio to the full build of the same run (with CPU seconds: the machine is shared) and to
  reading and decoding every input file once in a fresh process (``reference: read``);
- ``kb rule 117.3b --json`` start to exit: ratio to ``python -c pass``;
- server start, RSS per worker, distinct uncached rule pages with wrk: ``kb`` and a minimal Flask
  "hello" app, both served the way ``kb serve`` serves (``bench_load.measure``) and driven by the
  same wrk command.

Targets: full build <= 60 s and <= 1 GB peak; one edition added <= 5 s; unchanged <= 1 s;
``kb rule`` <= 0.2 s; server start <= 1 s; RSS per worker <= 200 MB; >= 2,000 distinct rule
URLs across editions and locales at >= 500 req/s with p99 <= 50 ms (32 connections, page cache
off). Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAW = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw"
FOLDERS = [RAW / "cr-en", RAW / "cr-en-archive"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

results: list[tuple[str, str, bool | None]] = []


def report(name: str, text: str, ok: bool | None = None) -> None:
    """Print one figure and remember it for the summary."""
    mark = "" if ok is None else ("  [ok]" if ok else "  [MISSED]")
    print(f"{name}: {text}{mark}", flush=True)
    results.append((name, text, ok))


def measure_peak(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, this command's own peak RSS and stdout (in a fresh helper process, so the
    peak of earlier commands does not count)."""
    code = (
        "import json, resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "s = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'s': s, 'rss': u.ru_maxrss * 1024, 'cpu': u.ru_utime + u.ru_stime, "
        "'code': p.returncode, 'out': p.stdout, 'err': p.stderr[-3000:]}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *cmd], capture_output=True, text=True, env=ENV, check=True
    )
    data = json.loads(done.stdout)
    if data["code"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {data['err']}")
    CPU[0] = data["cpu"]
    return data["s"], data["rss"], data["out"]


#: CPU seconds (user + system) of the last command measured by :func:`measure_peak`: on a shared
#: machine the wall time also counts the time other work held the cores.
CPU = [0.0]


def reference_read(files: list[Path]) -> float:
    """Seconds for a fresh process to read, decode and split every input file (the baseline)."""
    code = (
        "import sys, unicodedata\n"
        "n = 0\n"
        "for p in sys.argv[1:]:\n"
        "    data = open(p, 'rb').read()\n"
        "    for enc in ('utf-8', 'utf-16', 'cp1252'):\n"
        "        try:\n"
        "            text = data.decode(enc); break\n"
        "        except UnicodeDecodeError:\n"
        "            continue\n"
        "    n += len(unicodedata.normalize('NFKC', text).splitlines())\n"
    )
    best = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, *map(str, files)], check=True, env=ENV)
        best.append(time.perf_counter() - t)
    return min(best)


def kb_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb", *args]


def corpus_files() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in folder.glob("*.txt"))


def corpus_folder(work: Path, leave_out: set[str]) -> Path:
    """A folder of links to every input file but those left out."""
    folder = work / "corpus"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for p in corpus_files():
        if p.name not in leave_out:
            (folder / p.name).symlink_to(p)
    return folder


def full_build(work: Path) -> tuple[Path, float, int, dict, list[str]]:
    """Build every input from scratch: (corpus folder, seconds, peak RSS, build JSON, files left
    out). A file the build refuses (the damaged 2013-02-01 while the readers stop at it) is left
    out here and the build timed again."""
    left_out: set[str] = set()
    full = work / "full"
    for _ in range(5):
        folder = corpus_folder(work, left_out)
        shutil.rmtree(full, ignore_errors=True)
        try:
            seconds, rss, out = measure_peak(
                kb_cmd("build", "--json", "--instance", str(full), "--corpus", str(folder))
            )
        except RuntimeError as exc:
            bad = re.search(r"(MagicCompRules[^:\s]*\.txt)", str(exc))
            if not bad or bad.group(1) in left_out:
                raise
            left_out.add(bad.group(1))
            continue
        return folder, seconds, rss, json.loads(out), sorted(left_out)
    raise RuntimeError("too many files refused")


def add_one(work: Path, files: list[Path], added: Path) -> Path:
    """An instance built from every file but ``added`` (which the caller then adds)."""
    minus = work / "corpus-minus"
    shutil.rmtree(minus, ignore_errors=True)
    minus.mkdir()
    for p in files:
        if p != added:
            (minus / p.name).symlink_to(p.resolve())
    inc = work / "incremental"
    shutil.rmtree(inc, ignore_errors=True)
    subprocess.run(
        kb_cmd("build", "--quiet", "--instance", str(inc), "--corpus", str(minus)),
        check=True,
        env=ENV,
    )
    return inc


def bench_builds(work: Path) -> Path:
    """Full build, one edition added, unchanged rebuild. Returns the full instance."""
    files = sorted(corpus_folder(work, set()).glob("*.txt"))
    ref = reference_read(files)
    print(
        f"reference: read and decode {len(files)} files in a fresh process: {ref:.2f} s; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    folder, seconds, rss, info, left_out = full_build(work)
    files = sorted(folder.glob("*.txt"))
    if left_out:
        print(f"note: left out by this benchmark (the build refused them): {', '.join(left_out)}")
    full = work / "full"
    parts = ", ".join(f"{k} {v:.1f}" for k, v in info["timings"].items())
    report(
        "full build",
        f"{seconds:.1f} s, CPU {CPU[0]:.1f} s ({seconds / ref:.0f}x reference), peak "
        f"{rss / 2**20:.0f} MB, {info['totals']['editions']} editions, {info['totals']['rules']} rules ({parts})",
        seconds <= 60 and rss <= 2**30,
    )

    full_seconds, full_cpu = seconds, CPU[0]
    # One edition added to a built archive: the archive without one edition, then that edition
    # alone (the newest, then one in the middle, which replaces a comparison of its neighbours).
    for label, added in (("newest", files[-1]), ("in the middle", files[-2])):
        inc = add_one(work, files, added)
        seconds, rss, out = measure_peak(
            kb_cmd("build", "--json", "--instance", str(inc), "--corpus", str(added.resolve()))
        )
        info = json.loads(out)
        parts = ", ".join(f"{k} {v:.1f}" for k, v in info["timings"].items())
        how = info.get("notes", [""])[0] if isinstance(info.get("notes"), list) else ""
        report(
            f"add one edition ({label})",
            f"{seconds:.2f} s, CPU {CPU[0]:.1f} s ({seconds / full_seconds:.2f}x the full build, "
            f"CPU {CPU[0] / max(full_cpu, 1e-9):.2f}x; {seconds / ref:.1f}x reference), peak "
            f"{rss / 2**20:.0f} MB, {added.name} ({parts}) [{how}]",
            seconds <= 5,
        )
    runs = []
    for _ in range(3):
        seconds, _, out = measure_peak(kb_cmd("build", "--json", "--instance", str(inc)))
        assert json.loads(out)["skipped"]
        runs.append(seconds)
    seconds = statistics.median(runs)
    report(
        "unchanged rebuild",
        f"{seconds:.2f} s median of 3 ({seconds / full_seconds:.3f}x the full build, "
        f"{seconds / ref:.1f}x reference)",
        seconds <= 1,
    )
    return full


def bench_rule_command(instance: Path) -> None:
    """``kb rule 117.3b --json`` start to exit against ``python -c pass``."""

    def runs(cmd: list[str], n: int = 15) -> tuple[float, float]:
        xs = []
        for _ in range(n):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=ENV)
            xs.append(time.perf_counter() - t)
        return min(xs), statistics.median(xs)

    runs(kb_cmd("rule", "117.3b", "--json", "--instance", str(instance)), 2)  # write .pyc files
    _ref_min, ref_med = runs([sys.executable, "-c", "pass"])
    kb_min, kb_med = runs(kb_cmd("rule", "117.3b", "--json", "--instance", str(instance)))
    _, rss, _ = measure_peak(kb_cmd("rule", "117.3b", "--json", "--instance", str(instance)))
    report(
        "kb rule 117.3b --json",
        f"median {kb_med * 1000:.0f} ms, best {kb_min * 1000:.0f} ms, peak {rss / 2**20:.0f} MB "
        f"(python -c pass: median {ref_med * 1000:.0f} ms; ratio {kb_med / ref_med:.1f}x)",
        kb_med <= 0.2,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--work", type=Path, help="working folder (default: a temporary one)")
    ap.add_argument("--duration", type=int, default=20, help="seconds of wrk per server")
    ap.add_argument("--skip-builds", action="store_true", help="reuse WORK/full")
    ap.add_argument("--builds-only", action="store_true", help="the build figures alone")
    args = ap.parse_args()
    if not all(f.is_dir() for f in FOLDERS):
        print(f"skipped: {FOLDERS} not found")
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="kb-archive-"))
    work.mkdir(parents=True, exist_ok=True)
    instance = work / "full" if args.skip_builds else bench_builds(work)
    if not args.builds_only:
        bench_rule_command(instance)
    if args.builds_only:
        pass
    elif shutil.which("wrk"):
        # The serving figures are bench_load.py's: the production server (kb.web.serving) with
        # 1 and 2 workers against a Flask hello served the same way.
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_load import measure

        for name, text, ok in measure(instance, args.duration):
            report(name, text, ok)
    else:
        print("wrk not found (apt-get install wrk): server figures skipped")
    print("\nsummary")
    for name, text, ok in results:
        print(f"  {'ok' if ok else 'MISSED' if ok is False else '--':<6} {name}: {text}")
    return 0 if all(ok is not False for _, _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
