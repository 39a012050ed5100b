"""``kb export DIR``: the whole site as static files, for any web host or CDN.

Every page is rendered by the Flask app itself (its test client), so the static copy has the same
HTML and JSON as ``kb serve``. What needs a server becomes a file a static host can serve:

- **Extensionless URLs.** A static host picks the content type from the file name (``python -m
  http.server`` guesses from the extension, so a file named ``117.3b`` would be sent as
  ``application/octet-stream`` and downloaded). Each page therefore is a folder with an
  ``index.html`` (``/en/rules/117.3b`` -> ``en/rules/117.3b/index.html``), which every static host
  and CDN serves as HTML at that folder's URL; hosts without "pretty URLs" first answer
  ``/en/rules/117.3b`` with a redirect to ``/en/rules/117.3b/`` (http.server does), then the same
  page. JSON twins keep their real names (``en/rules/117.3b.json``): same URL, right type.
- **Redirects** (old numbers, glossary aliases, ``/r/`` permalinks, ``/``) become small HTML pages
  that go to the target (a script for the visitor's language, ``?edition=`` and ``#R1173a``
  anchors; a meta refresh and a plain link without it); a redirecting JSON URL holds the JSON of
  its target, which is what a client following the redirect gets from the server.
- **Search** runs in the browser with Pagefind (``pagefind[extended]``, whose binary segments
  Japanese): one index per language, built over the exported pages; the search page is a template
  of its own (``templates/export/search.html``). Linkify needs a server, and the page says so.

An export writes only files whose bytes changed and removes only files an earlier export wrote,
so a re-export of an unchanged instance rewrites nothing and a CDN sync uploads only what changed.

This module runs the export (the crawl, its workers, the manifest); :mod:`kb.export.pages` asks the
app, :mod:`kb.export.files` writes what is no page of the app, :mod:`kb.export.static` the files.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.export.files import STRINGS, export_extras, redirect_html, static_page
from kb.export.pages import (
    Site,
    card_slugs,
    internal_links,
    is_page_link,
    permalink_numbers,
    quote_path,
    seed_urls,
)
from kb.export.redirects import (
    Patterns,
    Stubs,
    anchor_pairs,
    json_stub,
    norm,
    redirect_lines,
    stub_pairs,
    write_redirects,
)
from kb.export.static import (
    MANIFEST,
    ExportError,
    Writer,
    build_search,
    file_for,
    file_stamps,
    is_unchanged,
    json_twin,
    pagefind_binary,
    read_manifest,
    write_manifest,
)
from kb.export.versions import Versions, indexed_pages
from kb.web.i18n import LOCALES

DEFAULT_BASE_URL = "http://127.0.0.1:8000"


@dataclass
class ExportReport:
    """What an export wrote: counts, bytes and where the time went."""

    out: Path
    pages: int = 0
    json: int = 0
    redirects: int = 0
    written: int = 0
    unchanged: int = 0
    removed: int = 0
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    search: str = "built"
    skipped_links: int = 0
    changed: list[str] = field(default_factory=list)  # files written (new or different)
    #: URLs named or linked that the server answers with 404 too (rules the corpus lacks)
    missing: list[str] = field(default_factory=list)
    #: the server's redirects the export met: (URL, where it goes)
    moves: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        """A few lines for the terminal."""
        lines = [
            f"Exported to {self.out} in {self.seconds:.1f} s: {self.files} files, "
            f"{self.bytes / 1e6:.1f} MB ({self.pages} pages, {self.json} JSON, "
            f"{self.redirects} redirects); {self.written} written, {self.unchanged} unchanged, "
            f"{self.removed} removed; search: {self.search}",
            "timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in self.timings.items()),
        ]
        if self.missing:
            lines.append(
                f"{len(self.missing)} linked URLs are 404 on the server too (not in the corpus), "
                f"e.g. {', '.join(self.missing[:3])}"
            )
        return "\n".join(lines)


def check_base_url(url: str) -> str:
    """``url`` without its trailing slash, if it is an http(s) URL with a host and no path (else
    ExportError): the sitemap, OpenSearch and every page's canonical links are made from it, and
    the pages link to each other from the site's root, so they can't be hosted below a path."""
    from kb.base.urlcheck import base_url_problem

    url = url.strip()
    problem = base_url_problem(url)
    if problem:
        raise ExportError(f"--base-url {url!r}: {problem}")
    return url.rstrip("/")


# ---- the export ------------------------------------------------------------------------------
def export(
    instance: Path,
    out: Path,
    *,
    base_url: str | None = None,
    search: bool = True,
    quiet: bool = True,
    jobs: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> ExportReport:
    """Write the site of a built instance into ``out`` as static files (see the module docstring)."""
    started = time.perf_counter()
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: exists and is not a folder")
    if out.is_dir() and not (out / MANIFEST).is_file() and any(out.iterdir()):
        # Only a folder an earlier export wrote (its manifest says which files) may be written
        # over: anything else (/etc, a home folder) is someone's files, not ours to mix with.
        raise ExportError(
            f"{out}: the folder is not empty and no kb export wrote it (no {MANIFEST}); "
            "choose an empty or new folder"
        )
    base = check_base_url(base_url or DEFAULT_BASE_URL)
    if (
        out.resolve() == Path(instance).resolve()
        or Path(instance).resolve() in out.resolve().parents
    ):
        raise ExportError(f"{out}: the export must not go inside the instance {instance}")
    out.mkdir(parents=True, exist_ok=True)
    if progress is None and not quiet:
        from kb.build import terminal_progress

        progress = terminal_progress()
    jobs = max(1, jobs or min(4, os.cpu_count() or 1))
    report = ExportReport(out)
    previous = read_manifest(out)
    t = time.perf_counter()
    site = Site(instance, base)
    report.timings["load"] = time.perf_counter() - t
    if is_unchanged(out, previous, site.etag_seed, base, search):
        report.files = len(previous["files"])
        report.bytes = sum(previous["files"].values())
        report.unchanged = report.files
        report.pages, report.json, report.redirects = (
            previous["counts"]["pages"],
            previous["counts"]["json"],
            previous["counts"]["redirects"],
        )
        report.search = previous.get("search", "built")
        report.seconds = time.perf_counter() - started
        return report

    writer = Writer(out)
    if not previous:
        # A manifest from the start: the folder of an interrupted export is one the next run
        # takes back (and finishes).
        write_manifest(out, {"partial": True, "files": {}})
    try:
        t = time.perf_counter()
        versions = Versions(site.kb)
        patterns = Patterns(list(redirect_lines(site.kb, versions, bool(card_slugs(site.kb)))))
        report.timings["versions"] = time.perf_counter() - t
        _STATE.update(
            site=site,
            out=out,
            instance=Path(instance),
            versions=versions,
            patterns=patterns,
            stubs=Stubs(site),
        )
        t = time.perf_counter()
        pages = _export_pages(site, writer, report, jobs, progress)
        report.timings["pages"] = time.perf_counter() - t
        t = time.perf_counter()
        _export_permalinks(site, writer, report, jobs, progress)
        report.timings["permalinks"] = time.perf_counter() - t
        t = time.perf_counter()
        _write_stubs(site, writer, report, versions)
        _STATE.clear()
        report.timings["stubs"] = time.perf_counter() - t
        t = time.perf_counter()
        export_extras(site, writer, base, pages)
        write_redirects(site.kb, versions, writer, bool(card_slugs(site.kb)))
        report.timings["extras"] = time.perf_counter() - t
        if search:
            t = time.perf_counter()
            report.search = build_search(out, writer, indexed_pages(pages))
            report.timings["search index"] = time.perf_counter() - t
        else:
            report.search = "not built (--no-search)"
    except BaseException:  # interrupted (Ctrl-C, a closed pipe) or failed: say what was written
        _STATE.clear()
        files = {**previous.get("files", {}), **writer.files}
        write_manifest(out, {"partial": True, "files": dict(sorted(files.items()))})
        raise

    # Remove what an earlier export wrote and this one did not (never other files).
    root = out.resolve()
    for rel in previous.get("files", {}):
        target = (out / rel).resolve()
        if rel not in writer.files and target.is_relative_to(root) and target != root:
            target.unlink(missing_ok=True)  # never outside the folder, whatever the manifest says
            report.removed += 1
    report.written, report.unchanged = writer.written, writer.unchanged
    report.changed = writer.changed
    report.files = len(writer.files)
    report.bytes = sum(writer.files.values())
    manifest = {
        "seed": site.etag_seed,
        "base_url": base,
        "search": report.search,
        "counts": {"pages": report.pages, "json": report.json, "redirects": report.redirects},
        "files": dict(sorted(writer.files.items())),
        "stamps": {},
    }
    manifest["stamps"] = file_stamps(out, writer.files)
    write_manifest(out, manifest)
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class Batch:
    """What one worker did with one chunk of URLs (merged in chunk order, so output is stable)."""

    pages: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    #: the server's redirects: (URL, where it goes)
    moves: list[tuple[str, str]] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    unchanged: int = 0
    json: int = 0
    redirects: int = 0
    skipped_links: int = 0


#: The site and output folder of the running export; forked workers inherit them.
_STATE: dict[str, Any] = {}
_RULE = re.compile(r"^/(en|fr|ja)/([^/]+/)?rules/[^/]+$")
_GLOSSARY_ENTRY = re.compile(r"^/(en|fr|ja)/glossary/[^/]+$")
_OTHER_CARD = re.compile(r"^/(fr|ja)/cards/[^/]+$")


def _init_worker(instance: Path, base_url: str) -> None:
    # Ctrl-C is the parent's to handle (it stops the pool): no traceback from each worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STATE["site"] = Site(instance, base_url)


def _render_pages(urls: list[str]) -> Batch:
    """Render pages and their JSON twins; redirects become redirect pages (and ``_redirects``
    lines, for the HTML URL and its twin)."""
    site: Site = _STATE["site"]
    writer = Writer(_STATE["out"])
    batch = Batch()
    for url in urls:
        twin = json_twin(url)
        # a page and its twin from one run of the view (a card's twin in French and Japanese is
        # a pattern, not a file: that page is asked alone)
        both = None if _OTHER_CARD.match(url) else site.page_and_twin(url)
        if both is not None:
            rule = _RULE.match(url) is not None
            body = both[0] if rule else static_page(site, url, both[0])
            writer.put(file_for(url), body)
            writer.put(file_for(twin), both[1])
            batch.pages.append(url)
            batch.json += 1
            for link in internal_links(body.decode("utf-8")):
                batch.skipped_links += not rule and "?" in link
                batch.links.append(link.split("?", 1)[0])
            if _GLOSSARY_ENTRY.match(url):
                batch.moves += _spellings(site, url, both[1])
            continue
        answer = site.get(url)
        if answer.status in (301, 302, 303, 307, 308) and answer.location:
            writer.put(file_for(url), _STATE["stubs"].page(url, answer.location))
            batch.redirects += 1
            batch.moves.append((url, answer.location))
            batch.links.append(urllib.parse.urlsplit(answer.location).path)
            data = site.get(twin)
            if data.location:
                batch.moves.append((twin, data.location))
            continue
        if answer.status == 200 and answer.mimetype == "text/html":
            body = static_page(site, url, answer.body)
            writer.put(file_for(url), body)
            batch.pages.append(url)
            for link in internal_links(body.decode("utf-8")):
                if "?" in link:
                    batch.skipped_links += 1
                batch.links.append(link.split("?", 1)[0])
        else:
            batch.missing.append(url)
            continue
        if _OTHER_CARD.match(url):
            continue  # a card's JSON twin is written once, in English (a pattern for the others)
        data = site.get(twin)
        if data.status == 200 and data.mimetype == "application/json":
            writer.put(file_for(twin), data.body)
            batch.json += 1
            if _GLOSSARY_ENTRY.match(url):
                batch.moves += _spellings(site, url, data.body)
        elif data.location:
            batch.moves.append((twin, data.location))
    batch.files, batch.changed, batch.unchanged = writer.files, writer.changed, writer.unchanged
    return batch


def _spellings(site: Site, url: str, twin: bytes) -> list[tuple[str, str]]:
    """Other spellings of a glossary entry the server sends to it: the term as printed and its
    names in the other languages (``/fr/glossary/priorité`` -> ``/fr/glossary/priority``), for
    ``_redirects`` (and their JSON twins)."""
    data = json.loads(twin)
    entry = data.get("entry", {})
    names = {entry.get("term", ""), *entry.get("aliases", [])}
    names |= {n for eq in data.get("equivalents", []) for n in eq.get("names", [])}
    locale = url.split("/")[1]
    moves = []
    for name in sorted(n for n in names if n):
        for spelling in dict.fromkeys((name, name.lower())):
            path = quote_path(f"/{locale}/glossary/{spelling}")
            if path == url or "/" in spelling:
                continue
            answer = site.get(path)
            if answer.location and quote_path(answer.location) == url:
                moves += [(path, url), (path + ".json", url + ".json")]
    return moves


def _run(
    work: Callable[[list[str]], Batch],
    items: list[str],
    jobs: int,
    progress: Callable[..., None] | None,
    label: str,
) -> list[Batch]:
    """Run ``work`` over chunks of ``items``, in forked workers when ``jobs`` > 1."""
    size = max(1, min(250, len(items) // (jobs * 4) or 1))
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    results: list[Batch] = []
    if jobs <= 1 or len(chunks) <= 1:
        for n, chunk in enumerate(chunks, 1):
            results.append(work(chunk))
            if progress:
                progress(f"{label} {min(n * size, len(items))}/{len(items)}", n, len(chunks))
        return results
    import multiprocessing

    # Each worker opens the instance itself: a database connection must not cross a fork.
    context = multiprocessing.get_context("fork")
    with context.Pool(
        jobs, initializer=_init_worker, initargs=(_STATE["instance"], _STATE["site"].base_url)
    ) as pool:
        for n, batch in enumerate(pool.imap(work, chunks), 1):
            results.append(batch)
            if progress:
                progress(f"{label} {min(n * size, len(items))}/{len(items)}", n, len(chunks))
    return results


def _merge(batches: list[Batch], writer: Writer, report: ExportReport) -> None:
    for batch in batches:
        writer.files.update(batch.files)
        writer.changed += batch.changed
        writer.written += len(batch.changed)
        writer.unchanged += batch.unchanged
        report.pages += len(batch.pages)
        report.json += batch.json
        report.redirects += batch.redirects
        report.skipped_links += batch.skipped_links
        report.missing += batch.missing
        report.moves += batch.moves


def _export_pages(
    site: Site,
    writer: Writer,
    report: ExportReport,
    jobs: int,
    progress: Callable[..., None] | None,
) -> list[str]:
    """Render every page the knowledge base names, then every page they link, until none is
    new; the HTML page URLs written, in a stable order."""
    versions: Versions = _STATE["versions"]
    queue = list(dict.fromkeys(seed_urls(site.kb, versions)))
    seen = set(queue)
    pages: list[str] = []
    linked_r: dict[str, None] = _STATE.setdefault("linked_r", {})
    while queue:
        batches = _run(_render_pages, queue, jobs, progress, "pages")
        _merge(batches, writer, report)
        queue = []
        for batch in batches:
            pages += batch.pages
            for link in batch.links:
                path = quote_path(link)
                if path.startswith("/r/") and path.count("/") == 2:
                    linked_r.setdefault(urllib.parse.unquote(path[3:]).removesuffix(".json"))
                if path in seen or not is_page_link(path) or path.endswith(".json"):
                    continue
                seen.add(path)
                if versions.redirect(path) is None and not folded(path):
                    queue.append(path)  # else a stub or a pattern of _redirects answers it
    return pages


def folded(path: str) -> bool:
    """True for an edition's contents (or one-page rules) in another locale than the edition's:
    a pattern of ``_redirects`` sends it to the page in the edition's own."""
    return _EDITION_PAGE.match(path) is not None and _STATE["patterns"].match(path) is not None


_EDITION_PAGE = re.compile(r"^/(en|fr|ja)/editions/[^/]+/rules(/|\.json$)")


def _write_stubs(site: Site, writer: Writer, report: ExportReport, versions: Versions) -> None:
    """The files that stand for redirects: a stub page for each redirect met that has no file
    yet (another spelling of a glossary entry), the JSON a redirecting twin leads to, the stubs
    of pinned rules (see :class:`Versions`) and ``/<locale>/rules/R1173a`` anchors."""
    stubs: Stubs = _STATE["stubs"]
    out: Path = _STATE["out"]

    def put_json(source: str, target: str) -> None:
        data = json_stub(out, target)
        if data is None:  # its target is no file of the export: what the server ends at
            answer = site.final(source)
            if answer.status != 200 or answer.mimetype != "application/json":
                report.missing.append(source)
                return
            data = answer.body
        writer.put(file_for(norm(source)), data)
        report.json += 1

    for source, target in dict.fromkeys(report.moves):
        if file_for(norm(source)) in writer.files:
            continue
        if source.endswith(".json"):
            put_json(source, target)
        else:
            writer.put(file_for(norm(source)), stubs.page(source, target))
            report.redirects += 1
    for source, target in stub_pairs(versions):
        writer.put(file_for(source), stubs.page(source, target))
        put_json(source + ".json", target + ".json")
        report.redirects += 1
    for source, target in anchor_pairs(list(site.kb.concordance)):
        if file_for(norm(target)) in writer.files:
            writer.put(file_for(source), stubs.page(source, target))
            report.redirects += 1


def _render_permalinks(numbers: list[str]) -> Batch:
    """``/r/<number>`` pages: each language's target and, for old numbers, each edition's."""
    from kb.web.pages.common import find_rule

    site: Site = _STATE["site"]
    kb = site.kb
    writer = Writer(_STATE["out"])
    batch = Batch()
    english = kb.editions_of("en")
    for number in numbers:
        quoted = urllib.parse.quote(number)
        targets: dict[str, str] = {}
        for loc in LOCALES:
            answer = site.get(f"/r/{quoted}?lang={loc}")
            if answer.location:
                targets[loc] = answer.location
        if not targets:
            batch.missing.append(f"/r/{number}")
            continue
        # ?edition= on the server maps an old number of that edition; the script does it here.
        # The server's own steps (find_rule), asked once per edition without a request each.
        editions: dict[str, str] = {}
        with site.app.test_request_context(f"/r/{quoted}", base_url=site.base_url):
            site.app.preprocess_request()
            versions: Versions = _STATE["versions"]
            # An edition that printed the rule as an earlier one did leads where that one does
            # (its own pinned page for a rule without a current one): asked once per version.
            by_version: dict[str, str] = {}
            for ed in english:
                if number not in versions.numbers.get(ed.id, ()):
                    continue
                version = versions.target(ed.id, number)[1]
                location = by_version.get(version)
                if location is None:
                    found = find_rule(kb, "en", number, version, read=False)
                    location = by_version[version] = found.url + found.via
                pinned = f"/en/{urllib.parse.quote(version)}/rules/"
                if location.startswith(pinned):
                    location = f"/en/{urllib.parse.quote(ed.id)}/rules/" + location[len(pinned) :]
                if location != targets.get("en"):
                    editions[ed.id] = location.removeprefix("/en/")
        dates = {ed.id: ed.date for ed in english if ed.id in editions and ed.date}
        default = targets.get("en") or next(iter(targets.values()))
        body = redirect_html(
            site, "/r/", default, targets=targets, editions=editions, dates=dates, permalink=True
        )
        writer.put(file_for(f"/r/{quoted}"), body)
        batch.redirects += 1
        path, mark, query = default.partition("?")
        batch.moves.append((f"/r/{quoted}.json", f"{path}.json{mark}{query}"))
    batch.files, batch.changed, batch.unchanged = writer.files, writer.changed, writer.unchanged
    return batch


def _export_permalinks(
    site: Site,
    writer: Writer,
    report: ExportReport,
    jobs: int,
    progress: Callable[..., None] | None,
) -> None:
    """``/r/<number>`` for every number any edition printed: a page that picks the language."""
    # every number an edition printed, and those the pages link as /r/<number>
    numbers = list(dict.fromkeys([*permalink_numbers(site.kb), *_STATE.get("linked_r", [])]))
    batches = _run(_render_permalinks, numbers, jobs, progress, "permalinks")
    _merge(batches, writer, report)


__all__ = [
    "MANIFEST",
    "STRINGS",
    "ExportError",
    "ExportReport",
    "Site",
    "export",
    "file_for",
    "json_twin",
    "pagefind_binary",
]
