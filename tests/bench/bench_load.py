"""Serving at archive scale, every target of issue 9 in one run: start, throughput, memory.

Usage::

    python tests/bench/bench_load.py --instance DIR [--duration 20] [--clients 32]
    python tests/bench/bench_load.py            # builds cr-en + cr-en-archive first (slow)
    python tests/bench/bench_load.py --instance DIR --reference ../kb-old   # against a checkout

The server is the one ``kb serve`` runs (:func:`kb.web.serving.serve`: gunicorn's arbiter, waitress
in each worker), started the way the command does (the staleness check included), with the page
cache off so that every request renders its page. The reference is a minimal Flask "hello" app
served by the very same function in the same run; every figure comes with its ratio to it.

- server start to first answer: spawn to the first 200 of a rule page (2 workers). Target <= 1 s.
- distinct uncached rule pages: wrk, ``--clients`` connections, over every rule of nine editions
  in en, fr and ja (pinned URLs, shuffled; far more URLs than requests, so none repeats), with 1
  and with 2 workers. Target (2 workers, this 2-core machine): >= 500 req/s, p99 <= 50 ms.
- server CPU per request (user + system time of the server's processes over the wrk run,
  divided by the requests): what a page costs whatever else the machine runs.
- RSS per worker after the warm-up: once after pages only, once after each worker served
  searches too (the search postings and the Japanese dictionary load then). Target <= 200 MB.

What the server keeps between requests is shared data, never a page (:data:`CACHED`, printed
with the results): the page cache, which keeps whole responses by URL, is off.

The load average and core count are printed at the start and the end: the machine is shared, and
the ratios to "hello" are the figures that travel. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

RAW = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw"
FOLDERS = [RAW / "cr-en", RAW / "cr-en-archive"]
MIN_URLS = 2000
TARGET_RPS, TARGET_P99_MS, TARGET_START_S, TARGET_RSS_MB = 500.0, 50.0, 1.0, 200.0
#: What the kb server keeps between requests in this measure (each process its own).
CACHED = (
    "caches of shared data only: up to 4,096 decoded rules (first in, first out), glossary "
    "terms (8,192) and example summaries (1,024) as the pages list them, edition labels and "
    "lags, translated messages, the layout's per-locale parts; no page or page fragment by URL "
    "(page cache off)"
)
SEARCHES = ["priority", "combat damage", "priorité", "優先権", "mana ability", "layer", "stack"]

KB_SERVER = """
import sys
from pathlib import Path
from kb.build import is_stale
from kb.web.serving import serve
instance = Path(sys.argv[1])
is_stale(instance)  # what `kb serve` checks before serving (its answer is not acted on here)
serve(instance, port=int(sys.argv[2]), workers=int(sys.argv[3]), page_cache=False,
      announce=lambda line: None)
"""
HELLO_SERVER = """
import sys
from pathlib import Path
from flask import Flask
import kb.web.serving as serving

app = Flask("hello")

@app.get("/<path:anything>")
def hello(anything):
    return "hello"

serving._make_app = lambda instance, page_cache=True: app  # the same server, a trivial app
serving.serve(Path("."), port=int(sys.argv[2]), workers=int(sys.argv[3]), announce=lambda l: None)
"""
WRK_SCRIPT = """
local urls = {}
for line in io.lines("%(urls)s") do urls[#urls + 1] = line end
local n = 0
function setup(thread)
  thread:set("id", n)
  n = n + 1
end
function init(args)
  counter = math.floor(id * #urls / 2) + %(offset)d
end
function request()
  counter = counter + 1
  return wrk.format("GET", urls[(counter %% #urls) + 1])
end
"""


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build_instance(folder: Path) -> Path:
    """cr-en + cr-en-archive built into ``folder``."""
    from kb.build import build

    instance = folder / "instance"
    report = build(instance, FOLDERS)
    print(f"built {instance} in {report.seconds:.1f} s")
    return instance


def rule_urls(instance: Path) -> list[str]:
    """Every rule of nine English editions spread over the archive, in en, fr and ja, shuffled."""
    from kb.build import load

    kb = load(instance)
    eds = kb.editions_of("en", full_only=True)
    picked = [*eds[:: max(1, len(eds) // 8)][:8], eds[-1]]
    urls = [
        f"/{locale}/{ed.id}/rules/{number}"
        for ed in picked
        for number in kb.ordered_numbers(ed.id)
        for locale in ("en", "fr", "ja")
    ]
    random.Random(9).shuffle(urls)
    return urls


class Server:
    """A server process (the arbiter in its own session), stopped with its workers."""

    def __init__(
        self, code: str, instance: Path, workers: int, first: str, source: Path | None = None
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        started = time.perf_counter()
        env = None
        if source is not None:  # another checkout's kb (its code first on the path)
            env = {**os.environ, "PYTHONPATH": str(source)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, str(instance), str(self.port), str(workers)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
            cwd=str(source) if source is not None else None,
        )
        while time.perf_counter() - started < 120:
            try:
                with urllib.request.urlopen(self.base + first, timeout=5) as response:
                    if response.status == 200:
                        self.start_s = time.perf_counter() - started
                        return
            except OSError:
                time.sleep(0.01)
        self.stop()
        raise SystemExit(f"the server ({workers} workers) did not answer {first} in 120 s")

    def rss_mb(self, field: str = "VmRSS") -> list[float]:
        """RSS of each process of the server but the arbiter (all of it with one process);
        ``field="RssFile"``: the part of it that maps files (the Japanese dictionary, shared by
        the workers through the page cache)."""
        out = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            if re.search(rf"^PPid:\s+{self.proc.pid}$", status, re.M):
                found = re.search(rf"^{field}:\s+(\d+) kB", status, re.M)
                out.append(int(found.group(1)) / 1024 if found else 0.0)
        return sorted(out)

    def cpu_s(self) -> float:
        """CPU seconds (user + system) used so far by the server's processes."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in [self.proc.pid, *self._children()]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / ticks
        return total

    def _children(self) -> list[int]:
        out = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                if re.search(rf"^PPid:\s+{self.proc.pid}$", status, re.M):
                    out.append(int(pid))
        return out

    def stop(self) -> None:
        """SIGTERM to the whole session, then wait."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)


def wrk(base: str, script: Path, duration: int, clients: int) -> tuple[float, float, int, int]:
    """Requests/s, p99 (ms), requests made and non-2xx answers of one wrk run."""
    out = subprocess.run(
        ["wrk", "-t2", f"-c{clients}", f"-d{duration}s", "--latency", "-s", str(script), base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M).groups()  # type: ignore[union-attr]
    count = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return (
        rps,
        float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit],
        count,
        (int(bad.group(1)) if bad else 0),
    )


def searches(base: str, rounds: int) -> None:
    """Distinct searches over fresh connections, so that every worker serves some."""
    for i in range(rounds):
        q = urllib.parse.quote(f"{SEARCHES[i % len(SEARCHES)]} {i}")
        with urllib.request.urlopen(f"{base}/en/search?q={q}", timeout=60) as response:
            response.read()


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}, {os.cpu_count()} cores"


def measure(
    instance: Path, duration: int = 20, clients: int = 32, reference: Path | None = None
) -> list[tuple[str, str, bool | None]]:
    """Every serving figure of an instance: ``(name, text, ok)``, ok None for figures without
    a target (bench_archive.py reports these too). ``reference``: another checkout of kb (an
    older commit) whose server serves the same pages in the same run, for a ratio that does not
    move with the machine's load."""
    print(f"start: {load_line()}")
    work = Path(tempfile.mkdtemp(prefix="kb-load-"))
    results: list[tuple[str, str, bool | None]] = []
    try:
        urls = rule_urls(instance)
        (work / "urls.txt").write_text("\n".join(urls) + "\n")
        # Each run starts elsewhere in the list: no server sees a URL twice.
        needed = (duration + 5) * 2000
        print(f"{len(urls)} distinct rule URLs, page cache off, wrk {clients} connections")
        print(f"kb keeps {CACHED}")
        figures: dict[tuple[str, int], tuple[float, float, int, int]] = {}
        starts: dict[tuple[str, int], float] = {}
        cpu_ms: dict[tuple[str, int], float] = {}
        rss: dict[str, list[float]] = {}
        offset = 0
        servers: list[tuple[str, str, str, Path | None]] = [
            ("hello", HELLO_SERVER, "/x", None),
            ("kb", KB_SERVER, "/en/rules/117.3b", None),
        ]
        if reference is not None:
            servers.append(("ref", KB_SERVER, "/en/rules/117.3b", reference))
        for name, code, first, source in servers:
            for workers in (1, 2):
                script = work / f"{name}-{workers}.lua"
                script.write_text(WRK_SCRIPT % {"urls": work / "urls.txt", "offset": offset})
                offset = (offset + needed) % max(1, len(urls))
                server = Server(code, instance, workers, first, source)
                try:
                    starts[(name, workers)] = server.start_s
                    wrk(server.base, script, 5, clients)  # warm-up: every worker renders
                    cpu = server.cpu_s()
                    figures[(name, workers)] = wrk(server.base, script, duration, clients)
                    cpu_ms[(name, workers)] = (
                        (server.cpu_s() - cpu) * 1000 / max(1, figures[(name, workers)][2])
                    )
                    if name == "kb" and workers == 2:
                        rss["kb pages"] = server.rss_mb()
                        rss["kb pages file"] = server.rss_mb("RssFile")
                        searches(server.base, 16)
                        rss["kb pages+search"] = server.rss_mb()
                        rss["kb pages+search file"] = server.rss_mb("RssFile")
                    if name == "hello" and workers == 2:
                        rss["hello"] = server.rss_mb()
                    if name == "ref" and workers == 2:
                        rss["ref"] = server.rss_mb()
                finally:
                    server.stop()
                rps, p99, count, bad = figures[(name, workers)]
                print(
                    f"  {name:<5} {workers} worker(s): start {starts[(name, workers)]:.2f} s, "
                    f"{rps:7.0f} req/s, p99 {p99:7.1f} ms, {count} requests, {bad} not 2xx, "
                    f"server CPU {cpu_ms[(name, workers)]:.2f} ms/request"
                )

        start, h_start = starts[("kb", 2)], starts[("hello", 2)]
        results.append(
            (
                "server start to first answer (2 workers)",
                f"{start:.2f} s (hello {h_start:.2f} s; ratio {start / h_start:.1f}x)",
                start <= TARGET_START_S,
            )
        )
        for workers in (1, 2):
            rps, p99, count, bad = figures[("kb", workers)]
            h_rps, h_p99, _n, _bad = figures[("hello", workers)]
            target = workers == 2
            results.append(
                (
                    f"distinct uncached rule pages, {workers} worker(s)",
                    f"{rps:.0f} req/s, p99 {p99:.1f} ms, {bad} not 2xx (hello {h_rps:.0f} req/s, "
                    f"p99 {h_p99:.1f} ms; ratio {rps / h_rps:.2f}x)",
                    (rps >= TARGET_RPS and p99 <= TARGET_P99_MS and bad == 0) if target else None,
                )
            )
        if reference is not None:
            for workers in (1, 2):
                rps, p99, _count, _bad = figures[("kb", workers)]
                r_rps, r_p99, _n, _r_bad = figures[("ref", workers)]
                results.append(
                    (
                        f"the same pages, {workers} worker(s), against {reference}",
                        f"{rps:.0f} against {r_rps:.0f} req/s ({rps / r_rps:.2f}x), p99 {p99:.1f} "
                        f"against {r_p99:.1f} ms, server CPU {cpu_ms[('kb', workers)]:.2f} against "
                        f"{cpu_ms[('ref', workers)]:.2f} ms/request "
                        f"({cpu_ms[('kb', workers)] / cpu_ms[('ref', workers)]:.2f}x)",
                        None,
                    )
                )
        kb_cpu, h_cpu = cpu_ms[("kb", 1)], cpu_ms[("hello", 1)]
        results.append(
            (
                "server CPU per rule page, 1 worker (load-independent)",
                f"{kb_cpu:.2f} ms (hello {h_cpu:.2f} ms; ratio {kb_cpu / h_cpu:.1f}x; 2 cores at "
                f"this cost serve at most {2000 / kb_cpu:.0f} req/s)",
                None,
            )
        )
        scale = figures[("kb", 2)][0] / figures[("kb", 1)][0]
        h_scale = figures[("hello", 2)][0] / figures[("hello", 1)][0]
        results.append(("2 workers / 1 worker", f"{scale:.2f}x (hello {h_scale:.2f}x)", None))
        hello_rss = ", ".join(f"{r:.0f}" for r in rss["hello"])
        ref_rss = ", ".join(f"{r:.0f}" for r in rss.get("ref", []))
        for key in ("kb pages", "kb pages+search"):
            values = rss[key]
            against = f"; {reference} after pages {ref_rss} MB" if ref_rss else ""
            mapped = ", ".join(f"{r:.0f}" for r in rss[f"{key} file"])
            results.append(
                (
                    f"RSS per worker after {key.removeprefix('kb ')}",
                    f"{', '.join(f'{r:.0f}' for r in values)} MB, of which files mapped {mapped} MB"
                    f" (hello {hello_rss} MB{against})",
                    bool(values) and max(values) <= TARGET_RSS_MB,
                )
            )
        results.append(("URLs", f"{len(urls)} distinct", len(urls) >= MIN_URLS))
        results.append(("cached", CACHED, None))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results.append(("load at the end", load_line(), None))
    return results


def main() -> int:
    """Run every measure and print each target with ok or MISSED."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--instance", type=Path, help="a built instance (default: build one)")
    ap.add_argument("--duration", type=int, default=20, help="seconds of wrk per server")
    ap.add_argument("--clients", type=int, default=32, help="wrk connections (default 32)")
    ap.add_argument(
        "--reference",
        type=Path,
        help="a checkout of another commit of kb (git worktree add --detach DIR COMMIT): its "
        "server serves the same pages in the same run",
    )
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed (apt-get install wrk)")
    with tempfile.TemporaryDirectory(prefix="kb-load-build-") as folder:
        instance = args.instance or build_instance(Path(folder))
        results = measure(instance, args.duration, args.clients, args.reference)
    print("\nsummary")
    for name, text, ok in results:
        mark = "--" if ok is None else ("ok" if ok else "MISSED")
        print(f"  {mark:<6} {name}: {text}")
    return 0 if all(ok is not False for _, _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
