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
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import subprocess
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.web.i18n import LOCALES

MANIFEST = ".kb-export.json"
SITEMAP_LIMIT = 50_000  # URLs per sitemap file (the protocol's limit)
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
#: Parts of a page that Pagefind does not index: navigation, history, and other rules' previews.
PAGEFIND_EXCLUDE = (
    "header.site, footer.site, nav, details.history, .notices, .meta, "
    "section[aria-labelledby=h-refs], section[aria-labelledby=h-back]"
)
#: The pages Pagefind indexes: current rules, glossary entries and examples (not pinned editions,
#: whose texts would repeat every hit once per edition).
PAGEFIND_GLOB = "{en,fr,ja}/{rules,glossary,examples}/**/index.html"

_HREF = re.compile(r'href="(/[^"#]*)')

#: The export's own wording, in the three interface languages (the app's catalogs stay the web
#: app's; these strings appear only in the static copy).
STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "results": "{n} results for “{q}”",
        "none": "No results for “{q}”.",
        "goto": "Go to rule {n}",
        "loading": "Searching…",
        "noscript": "Search in this static copy of the site needs JavaScript.",
        "unavailable": "Search is not available in this copy (its index was not built).",
        "static_note": "This is a static copy of the site: search runs in your browser. Linking "
        "rule references in your own text (/api/linkify) and search filters need the server "
        "(kb serve).",
        "redirect": "This address moved to",
    },
    "fr": {
        "results": "{n} résultats pour « {q} »",
        "none": "Aucun résultat pour « {q} ».",
        "goto": "Aller à la règle {n}",
        "loading": "Recherche…",
        "noscript": "La recherche dans cette copie statique du site demande JavaScript.",
        "unavailable": "La recherche n’est pas disponible dans cette copie (index non construit).",
        "static_note": "Ceci est une copie statique du site : la recherche se fait dans votre "
        "navigateur. Lier les références de règles d’un texte (/api/linkify) et filtrer la "
        "recherche demandent le serveur (kb serve).",
        "redirect": "Cette adresse a changé :",
    },
    "ja": {
        "results": "「{q}」の検索結果 {n} 件",
        "none": "「{q}」に一致する結果はありません。",
        "goto": "ルール {n} へ移動",
        "loading": "検索中…",
        "noscript": "このサイトの静的コピーでの検索には JavaScript が必要です。",
        "unavailable": "このコピーでは検索を利用できません（索引が作成されていません）。",
        "static_note": "これはサイトの静的コピーです。検索はブラウザー内で行われます。"
        "テキスト中のルール参照のリンク化（/api/linkify）と検索の絞り込みにはサーバー"
        "（kb serve）が必要です。",
        "redirect": "このアドレスの移動先：",
    },
}


class ExportError(Exception):
    """An export that cannot be made: one line naming what is wrong."""


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


# ---- URL <-> file ---------------------------------------------------------------------------
def file_for(url_path: str) -> str:
    """The file (relative to the export) that serves a URL path; see the module docstring."""
    path = urllib.parse.unquote(url_path)
    parts = [p for p in path.split("/") if p]
    if any(p in (".", "..") or "\\" in p or "\x00" in p for p in parts):
        raise ExportError(f"{url_path}: not a path a static host can serve")
    if path.endswith("/") or not parts:
        return "/".join([*parts, "index.html"])
    if re.search(r"\.(json|xml|txt|css|js)$", parts[-1]):
        return "/".join(parts)
    return "/".join([*parts, "index.html"])


def json_twin(url_path: str) -> str:
    """The JSON twin of a page's URL (``/en/`` -> ``/en/index.json``, as the app names them)."""
    if url_path.count("/") == 2 and url_path.endswith("/"):
        return url_path + "index.json"
    if url_path.endswith("/"):
        return url_path[:-1] + ".json"
    return url_path + ".json"


# ---- writing --------------------------------------------------------------------------------
class Writer:
    """Writes files that changed only (atomically), and remembers every file it was given."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.files: dict[str, int] = {}
        self.written = 0
        self.unchanged = 0
        self.changed: list[str] = []

    def put(self, rel: str, data: bytes) -> None:
        path = self.out / rel
        self.files[rel] = len(data)
        try:
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                self.unchanged += 1
                return
        except (FileNotFoundError, NotADirectoryError):
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        self.written += 1
        self.changed.append(rel)


# ---- rendering through the app ---------------------------------------------------------------
@dataclass
class Rendered:
    """One URL as the app answered it."""

    status: int
    body: bytes
    location: str | None
    mimetype: str


class Site:
    """The Flask app of an instance and what the export needs to ask it."""

    def __init__(self, instance: Path) -> None:
        from kb.web import create_app
        from kb.web.resources import get_kb

        self.app = create_app({"INSTANCE": Path(instance), "PAGE_CACHE": False})
        self.client = self.app.test_client()
        with self.app.app_context():
            self.kb = get_kb()
        # Each canonical rule and term is shown by a dozen URLs (three locales, pinned editions,
        # JSON): remember these lookups once per process (read-only data, the same answers).
        for name in ("examples_for", "glossary_lookup"):
            with contextlib.suppress(AttributeError):  # a knowledge base with slots keeps its own
                setattr(self.kb, name, functools.lru_cache(maxsize=None)(getattr(self.kb, name)))

    def get(self, path: str, lang: str | None = None) -> Rendered:
        headers = {"Accept-Language": lang} if lang else {}
        response = self.client.get(path, headers=headers)
        location = response.headers.get("Location")
        if location:
            location = urllib.parse.urlsplit(location)._replace(scheme="", netloc="").geturl()
        return Rendered(response.status_code, response.get_data(), location, response.mimetype)

    def final(self, path: str) -> Rendered:
        """Follow redirects to the final answer (what a browser or curl -L gets)."""
        seen = set()
        answer = self.get(path)
        while answer.location and answer.location not in seen and len(seen) < 10:
            seen.add(answer.location)
            answer = self.get(answer.location)
        return answer

    def template(self, path: str, name: str, **context: Any) -> bytes:
        """A template of the export rendered in the app's context for ``path`` (its locale)."""
        from flask import render_template

        from kb.web.pages import swapped_locales

        with self.app.test_request_context(path):
            self.app.preprocess_request()
            context.setdefault("alternates", swapped_locales())
            return render_template(name, **context).encode()

    @property
    def etag_seed(self) -> str:
        return str(self.app.config["ETAG_SEED"])


# ---- what to export --------------------------------------------------------------------------
def seed_urls(kb: Any) -> list[str]:
    """Every page the knowledge base names: the crawl starts here and follows links from it."""
    from kb.rulenum import try_parse

    urls: list[str] = []
    for loc in LOCALES:
        urls += [f"/{loc}/{p}" for p in ("", "rules/", "glossary/", "editions/", "examples/")]
        urls += [
            f"/{loc}/rules/{n}"
            for n in kb.concordance
            if try_parse(n) is not None and str(try_parse(n)) == n
        ]
        for ed in kb.editions.values():
            urls += [f"/{loc}/{ed.id}/rules/{n}" for n in kb.ordered_numbers(ed.id)]
        # numbers of older editions: the server sends them to the rule they became
        urls += [f"/{loc}/rules/{n}" for n in permalink_numbers(kb) if n not in kb.concordance]
        urls += [f"/{loc}/glossary/{alias}" for alias in _glossary_aliases(kb)]
        urls += [f"/{loc}/editions/{span}" for span in kb.changes]
        urls += [f"/{loc}/examples/{ex.id}" for ex in kb.examples]
    return [urllib.parse.quote(u, safe="/:@!$&'()*+,;=-._~") for u in urls]


def _glossary_aliases(kb: Any) -> list[str]:
    """Other names of glossary entries (their URLs redirect to the entry's own)."""
    aliases: dict[str, None] = {}
    for entries in kb.glossary.values():
        for entry in entries.values():
            aliases.update(
                dict.fromkeys(a.lower() for a in entry.aliases if a.lower() != entry.key)
            )
    return list(aliases)


def permalink_numbers(kb: Any) -> list[str]:
    """Every number ``/r/`` answers: any number printed by any edition."""
    numbers: dict[str, None] = {}
    for ed in kb.editions.values():
        numbers.update(dict.fromkeys(kb.ordered_numbers(ed.id)))
    return list(numbers)


def _internal_links(html: str) -> Iterable[str]:
    yield from _HREF.findall(html)


def _is_page_link(path: str) -> bool:
    first = path.split("/", 2)[1] if path.count("/") >= 1 else ""
    if first not in LOCALES:
        return False
    rest = path.split("/", 2)[2] if path.count("/") >= 2 else ""
    return not rest.startswith(("search", "suggest", "opensearch.xml"))


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
    if (
        out.resolve() == Path(instance).resolve()
        or Path(instance).resolve() in out.resolve().parents
    ):
        raise ExportError(f"{out}: the export must not go inside the instance {instance}")
    out.mkdir(parents=True, exist_ok=True)
    if progress is None and not quiet:
        from kb.build import terminal_progress

        progress = terminal_progress()
    base = (base_url or DEFAULT_BASE_URL).rstrip("/")
    jobs = max(1, jobs or min(4, os.cpu_count() or 1))
    report = ExportReport(out)
    previous = _read_manifest(out)
    t = time.perf_counter()
    site = Site(instance)
    report.timings["load"] = time.perf_counter() - t
    if _unchanged(out, previous, site.etag_seed, base, search):
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
    t = time.perf_counter()
    _STATE.update(site=site, out=out, instance=Path(instance))
    pages = _export_pages(site, writer, report, jobs, progress)
    report.timings["pages"] = time.perf_counter() - t
    t = time.perf_counter()
    _export_permalinks(site, writer, report, jobs, progress)
    _STATE.clear()
    report.timings["permalinks"] = time.perf_counter() - t
    t = time.perf_counter()
    _export_extras(site, writer, base, pages)
    report.timings["extras"] = time.perf_counter() - t
    if search:
        t = time.perf_counter()
        report.search = _pagefind(out, writer)
        report.timings["search index"] = time.perf_counter() - t
    else:
        report.search = "not built (--no-search)"

    # Remove what an earlier export wrote and this one did not (never other files).
    for rel in previous.get("files", {}):
        if rel not in writer.files:
            (out / rel).unlink(missing_ok=True)
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
    manifest["stamps"] = _stamps(out, writer.files)
    _write_manifest(out, manifest)
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class Batch:
    """What one worker did with one chunk of URLs (merged in chunk order, so output is stable)."""

    pages: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    unchanged: int = 0
    json: int = 0
    redirects: int = 0
    skipped_links: int = 0


#: The site and output folder of the running export; forked workers inherit them.
_STATE: dict[str, Any] = {}


def _init_worker(instance: Path) -> None:
    _STATE["site"] = Site(instance)


def _render_pages(urls: list[str]) -> Batch:
    """Render pages and their JSON twins; redirects become redirect pages."""
    site: Site = _STATE["site"]
    writer = Writer(_STATE["out"])
    batch = Batch()
    for url in urls:
        answer = site.get(url)
        if answer.status in (301, 302, 303, 307, 308) and answer.location:
            _redirect_page(site, writer, url, answer.location)
            batch.redirects += 1
            batch.links.append(urllib.parse.urlsplit(answer.location).path)
        elif answer.status == 200 and answer.mimetype == "text/html":
            writer.put(file_for(url), answer.body)
            batch.pages.append(url)
            for link in _internal_links(answer.body.decode("utf-8")):
                if "?" in link:
                    batch.skipped_links += 1
                batch.links.append(link.split("?", 1)[0])
        else:
            batch.missing.append(url)
            continue
        twin = json_twin(url)
        data = site.final(twin)
        if data.status == 200 and data.mimetype == "application/json":
            writer.put(file_for(twin), data.body)
            batch.json += 1
    batch.files, batch.changed, batch.unchanged = writer.files, writer.changed, writer.unchanged
    return batch


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
    with context.Pool(jobs, initializer=_init_worker, initargs=(_STATE["instance"],)) as pool:
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


def _export_pages(
    site: Site,
    writer: Writer,
    report: ExportReport,
    jobs: int,
    progress: Callable[..., None] | None,
) -> list[str]:
    """Render every page the knowledge base names, then every page they link, until none is
    new; the HTML page URLs written, in a stable order."""
    queue = list(dict.fromkeys(seed_urls(site.kb)))
    seen = set(queue)
    pages: list[str] = []
    while queue:
        batches = _run(_render_pages, queue, jobs, progress, "pages")
        _merge(batches, writer, report)
        queue = []
        for batch in batches:
            pages += batch.pages
            for path in batch.links:
                if path not in seen and _is_page_link(path) and not path.endswith(".json"):
                    seen.add(path)
                    queue.append(path)
    return pages


def _redirect_html(
    site: Site, path: str, target: str, *, targets: dict[str, str] | None = None, **extra: Any
) -> bytes:
    locale = path.split("/", 2)[1] if path.split("/", 2)[1] in LOCALES else "en"
    data = {"target": target, "targets": targets or {}, **extra}
    return site.template(
        f"/{locale}/",
        "export/redirect.html",
        target=target,
        data=json.dumps(data, ensure_ascii=False, separators=(",", ":")),
        strings=STRINGS[locale],
    )


def _redirect_page(site: Site, writer: Writer, path: str, target: str) -> None:
    writer.put(file_for(path), _redirect_html(site, path, target))


def _render_permalinks(numbers: list[str]) -> Batch:
    """``/r/<number>`` pages: each language's target and, for old numbers, each edition's."""
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
        editions: dict[str, str] = {}
        for ed in english:
            if kb.rule(ed.id, number) is None:
                continue
            answer = site.get(f"/r/{quoted}?lang=en&edition={urllib.parse.quote(ed.id)}")
            if answer.location and answer.location != targets.get("en"):
                editions[ed.id] = answer.location.removeprefix("/en/")
        dates = {ed.id: ed.date for ed in english if ed.id in editions and ed.date}
        default = targets.get("en") or next(iter(targets.values()))
        body = _redirect_html(
            site, "/r/", default, targets=targets, editions=editions, dates=dates, permalink=True
        )
        writer.put(file_for(f"/r/{quoted}"), body)
        batch.redirects += 1
        data = site.final(f"/r/{quoted}.json")
        if data.status == 200:
            writer.put(file_for(f"/r/{quoted}.json"), data.body)
            batch.json += 1
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
    batches = _run(_render_permalinks, permalink_numbers(site.kb), jobs, progress, "permalinks")
    _merge(batches, writer, report)


def _export_extras(site: Site, writer: Writer, base: str, pages: list[str]) -> None:
    """The root, /r/, search pages, OpenSearch, sitemap, robots.txt, 404 and the static files."""
    from kb.web.app import STATIC_DIR

    writer.put(
        "index.html",
        _redirect_html(
            site, "/", "/en/", targets={loc: f"/{loc}/" for loc in LOCALES}, permalink=True
        ),
    )
    writer.put(
        "r/index.html",
        site.template("/r/", "export/permalink.html", strings=STRINGS["en"], alternates={}),
    )
    for loc in LOCALES:
        writer.put(
            file_for(f"/{loc}/search"),
            site.template(f"/{loc}/search", "export/search.html", strings=STRINGS[loc]),
        )
        writer.put(
            f"{loc}/opensearch.xml",
            site.template(f"/{loc}/", "export/opensearch.xml", locale=loc, base=base),
        )
    writer.put(
        "opensearch.xml", site.template("/en/", "export/opensearch.xml", locale="en", base=base)
    )
    missing = site.get("/en/this-page-does-not-exist")
    writer.put("404.html", missing.body)
    for path in sorted(STATIC_DIR.rglob("*")):
        if path.is_file():
            writer.put("static/" + path.relative_to(STATIC_DIR).as_posix(), path.read_bytes())
    _sitemaps(writer, base, pages)
    writer.put("robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n".encode())


def _sitemaps(writer: Writer, base: str, pages: list[str]) -> None:
    from xml.sax.saxutils import escape

    chunks = [pages[i : i + SITEMAP_LIMIT] for i in range(0, len(pages), SITEMAP_LIMIT)] or [[]]

    def urlset(urls: list[str]) -> bytes:
        rows = "".join(f"<url><loc>{escape(base + u)}</loc></url>\n" for u in urls)
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{rows}</urlset>\n"
        ).encode()

    if len(chunks) == 1:
        writer.put("sitemap.xml", urlset(chunks[0]))
        return
    names = []
    for n, chunk in enumerate(chunks, 1):
        names.append(f"sitemap-{n}.xml")
        writer.put(names[-1], urlset(chunk))
    rows = "".join(f"<sitemap><loc>{escape(base)}/{name}</loc></sitemap>\n" for name in names)
    writer.put(
        "sitemap.xml",
        (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{rows}</sitemapindex>\n"
        ).encode(),
    )


# ---- search (Pagefind) -----------------------------------------------------------------------
def pagefind_binary() -> Path | None:
    """The Pagefind executable of the ``pagefind[extended]`` package (None when not installed)."""
    try:
        from pagefind_bin_extended import get_executable  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:
        return Path(get_executable())
    except FileNotFoundError:
        return None


def _pagefind(out: Path, writer: Writer) -> str:
    """Index the exported pages with Pagefind, then copy its bundle in (changed files only)."""
    binary = pagefind_binary()
    if binary is None:
        return "not built (install pagefind[extended])"
    with tempfile.TemporaryDirectory(prefix="kb-pagefind-") as tmp:
        bundle = Path(tmp) / "pagefind"
        command = [
            str(binary),
            "--site",
            str(out),
            "--output-path",
            str(bundle),
            "--glob",
            PAGEFIND_GLOB,
            "--root-selector",
            "main",
            "--exclude-selectors",
            PAGEFIND_EXCLUDE,
            "--include-characters",
            ".",
            "--silent",
        ]
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            detail = (run.stderr or run.stdout).strip().splitlines()
            raise ExportError(f"pagefind failed: {detail[-1] if detail else run.returncode}")
        for path in sorted(bundle.rglob("*")):
            if not path.is_file():
                continue
            data = path.read_bytes()
            if path.name == "pagefind-entry.json":
                # Pagefind lists the languages in no fixed order: sort them, or every export
                # would rewrite this file.
                entry = json.loads(data)
                data = json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                data = data.encode()
            writer.put("pagefind/" + path.relative_to(bundle).as_posix(), data)
    return "built"


# ---- manifest --------------------------------------------------------------------------------
def _read_manifest(out: Path) -> dict[str, Any]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else {}
    except (OSError, ValueError):
        return {}


def _write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    data = json.dumps(manifest, indent=0, ensure_ascii=False).encode()
    path = out / MANIFEST
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _stamps(out: Path, files: dict[str, int]) -> dict[str, int]:
    stamps = {}
    for rel in files:
        with contextlib.suppress(OSError):
            stamps[rel] = (out / rel).stat().st_mtime_ns
    return stamps


def _unchanged(out: Path, previous: dict[str, Any], seed: str, base: str, search: bool) -> bool:
    """True when the last export came from the same build and code and its files are intact."""
    if not previous or previous.get("seed") != seed or previous.get("base_url") != base:
        return False
    if search != (previous.get("search") == "built"):
        return False
    stamps = previous.get("stamps", {})
    for rel, size in previous["files"].items():
        try:
            stat = (out / rel).stat()
        except OSError:
            return False
        if stat.st_size != size or stat.st_mtime_ns != stamps.get(rel):
            return False
    return True


__all__ = ["ExportError", "ExportReport", "export", "file_for", "json_twin"]
