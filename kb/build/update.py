"""``kb update``: fetch the newest official Comprehensive Rules text from the publisher and add it.

The publisher's rules page links the current ``.txt``; the update finds the newest such link,
downloads it with a conditional GET (ETag / If-Modified-Since remembered from the last download),
refuses anything that is not a complete rules text read with zero loss, then adds it to the
instance's corpus and builds. Every failure is one :class:`UpdateError` line naming the URL and
what is wrong, raised before anything is written: the instance is left exactly as it was.

Downloads live beside the instance (``<instance>-downloads/``), not inside it, because a build
replaces the instance folder as a whole; the build remembers their paths like any ``--corpus``.
The standard library's ``urllib`` does the HTTP: one GET of a page and one of a file need no more.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.client import HTTPException, IncompleteRead
from pathlib import Path
from typing import Any

from kb import __version__
from kb.base.urlcheck import (
    url_problem,  # re-exported: kb.cli.types and kb.export.runner import it here
)

#: The publisher's rules page, which links the current Comprehensive Rules text.
DEFAULT_RULES_URL = "https://magic.wizards.com/en/rules"
#: The setting that replaces it (also ``kb update --url``).
URL_ENV = "KB_RULES_URL"
DEFAULT_TIMEOUT = 30.0
#: A rules text is about 1 MB; anything past this is not one (and is not read into memory whole).
MAX_BYTES = 16 << 20
STATE_FILE = "update.json"
USER_AGENT = f"kb/{__version__} (rules reference; kb update)"

_DATE_IN_NAME = re.compile(r"(20\d{2}|19\d{2})-?([01]\d)-?([0-3]\d)")


class UpdateError(Exception):
    """An update that cannot be done: one line naming the URL and what is wrong."""

    def __init__(self, url: str, problem: str) -> None:
        self.url = url
        self.problem = problem
        super().__init__(f"{url}: {problem}")


@dataclass(frozen=True)
class RulesLink:
    """A link to a rules ``.txt`` found on the rules page, with the date its name carries."""

    url: str
    date: str | None


@dataclass
class UpdateResult:
    """What an update found and did: ``status`` is current, available or updated."""

    status: str
    page_url: str
    link: RulesLink | None = None
    date: str | None = None  # the effective date of the text downloaded, when one was
    newest_held: str | None = None
    file: Path | None = None
    notes: list[str] = field(default_factory=list)

    def message(self) -> str:
        """One line for the terminal."""
        held = self.newest_held or "none"
        if self.status == "updated":
            return f"kb: added the edition of {self.date} from {self.link.url if self.link else ''}"
        if self.status == "available":
            what = self.date or (self.link.date if self.link else None) or "a newer text"
            return f"kb: a newer edition is available ({what}; newest held: {held})"
        return f"kb: up to date (newest held: {held})"


def rules_url(explicit: str | None = None) -> str:
    """The rules page to read: ``--url``, else ``$KB_RULES_URL``, else the publisher's page."""
    if explicit:
        return check_url(explicit)
    if os.environ.get(URL_ENV):
        return check_url(os.environ[URL_ENV], f"${URL_ENV}")
    return DEFAULT_RULES_URL


def check_url(url: str, source: str = "--url") -> str:
    """``url`` if :func:`url_problem` finds nothing wrong, else an :class:`UpdateError`."""
    problem = url_problem(url)
    if problem:
        raise UpdateError(f"{source} {url!r}", problem)
    return url


def downloads_dir(instance: Path) -> Path:
    """Where downloaded rules texts and the update state are kept: beside the instance."""
    instance = Path(instance).resolve()
    return instance.parent / f"{instance.name}-downloads"


# ---- the rules page ------------------------------------------------------------------------
class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href.strip())


def _date_of(url: str) -> str | None:
    name = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    match = _DATE_IN_NAME.search(name)
    if not match:
        return None
    year, month, day = match.groups()
    if not ("01" <= month <= "12" and "01" <= day <= "31"):
        return None
    return f"{year}-{month}-{day}"


#: What stays as it is in a URL's path and query: the reserved and unreserved characters and
#: "%" (an escape the page already wrote); a space, a control or non-ASCII character is escaped.
_PATH_SAFE = "/%:@!$&'()*+,;=~-._"
_QUERY_SAFE = _PATH_SAFE + "?"


def _quoted(url: str) -> str:
    """``url`` as a request may carry it: a raw space or non-ASCII character in a link's path
    or query (``MagicCompRules 20260101.txt``, as pages do write) percent-encoded (UTF-8), the
    escapes already there kept, the fragment dropped (it is never sent)."""
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.quote(parts.path, safe=_PATH_SAFE)
    query = urllib.parse.quote(parts.query, safe=_QUERY_SAFE)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def find_rules_link(page_url: str, html: str) -> RulesLink:
    """The newest ``.txt`` linked from the rules page (by the date in its name, else the last)."""
    parser = _Links()
    parser.feed(html)
    links = []
    for href in parser.hrefs:
        try:
            url = _quoted(urllib.parse.urljoin(page_url, href))
        except ValueError:  # no URL at all ("http://[x/a.txt": a bracket opens no IPv6 host)
            continue
        path = urllib.parse.urlsplit(url).path
        if urllib.parse.urlsplit(url).scheme in ("http", "https") and path.lower().endswith(".txt"):
            links.append(RulesLink(url, _date_of(url)))
    if not links:
        raise UpdateError(page_url, "the page links no rules text (.txt); has its layout changed?")
    dated = [link for link in links if link.date]
    if dated:
        return max(dated, key=lambda link: link.date or "")
    return links[-1]


# ---- HTTP ----------------------------------------------------------------------------------
@dataclass
class _Answer:
    status: int
    body: bytes
    headers: dict[str, str]


def _get(url: str, timeout: float, headers: dict[str, str] | None = None) -> _Answer:
    """GET with a timeout and a size cap; every failure is an :class:`UpdateError` for ``url``."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            expected = response.headers.get("Content-Length")
            body = response.read(MAX_BYTES + 1)
            got = {k.lower(): v for k, v in response.headers.items()}
            status = response.status
    except urllib.error.HTTPError as exc:
        if exc.code == 304:
            return _Answer(304, b"", {k.lower(): v for k, v in exc.headers.items()})
        raise UpdateError(url, f"the server answered HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise UpdateError(url, f"no answer within {timeout:g} s (timed out)") from None
        detail = getattr(reason, "strerror", None) or str(reason)
        raise UpdateError(url, f"cannot reach the server (offline?): {detail}") from None
    except IncompleteRead as exc:
        raise UpdateError(
            url, f"truncated download: {len(exc.partial)} bytes received, more were announced"
        ) from None
    except TimeoutError:
        raise UpdateError(url, f"the download stalled for {timeout:g} s (timed out)") from None
    except (HTTPException, OSError) as exc:
        raise UpdateError(url, f"the download failed: {exc or type(exc).__name__}") from None
    except ValueError as exc:  # a URL urllib cannot ask (rules_url checks the page's own)
        raise UpdateError(url, f"not a valid URL ({exc})") from None
    if len(body) > MAX_BYTES:
        raise UpdateError(url, f"more than {MAX_BYTES >> 20} MB: not a rules text")
    if expected and expected.isdigit() and int(expected) != len(body):
        raise UpdateError(url, f"truncated download: {len(body)} of {int(expected)} bytes received")
    return _Answer(status, body, got)


# ---- checking a downloaded text ------------------------------------------------------------
def _looks_like_html(body: bytes, content_type: str) -> bool:
    head = body[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return (
        "html" in content_type.lower()
        or head.startswith((b"<!doctype", b"<html", b"<head", b"<?xml"))
        or b"<html" in head
    )


def raw_counts(text: str) -> dict[str, int]:
    """Rules, examples and glossary entries counted straight from the text with plain patterns.

    The count the reader's result must equal for "zero loss": numbered lines between the
    contents' Credits line and the Glossary heading (leading spaces allowed), ``Example:`` lines,
    and glossary paragraphs between the last Glossary and the last Credits heading.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    credits = [i for i, line in enumerate(lines) if line.strip() == "Credits"]
    glossary = [i for i, line in enumerate(lines) if line.strip() == "Glossary"]
    if len(credits) < 2 or not glossary:
        return {}
    body = lines[credits[0] + 1 : glossary[-1]]
    entries = sum(
        1
        for i in range(glossary[-1] + 1, credits[-1])
        if lines[i].strip() and not lines[i - 1].strip()
    )
    return {
        "rules": sum(1 for line in body if re.match(r"\s?\d{3}\.", line)),
        "examples": sum(1 for line in body if line.lstrip().startswith("Example:")),
        "glossary": entries,
    }


def check_text(url: str, body: bytes, content_type: str = "") -> Any:
    """Read a downloaded text; its :class:`~kb.sources.records.SourceDoc`, or an UpdateError.

    Refused: an HTML page, a file that is not one complete Comprehensive Rules text, a text with
    reader errors, and one whose rules, examples or glossary entries differ from the raw count.
    """
    from kb.sources.records import SourceError
    from kb.sources.registry import read_source

    if not body.strip():
        raise UpdateError(url, "the file is empty")
    if _looks_like_html(body, content_type):
        raise UpdateError(url, "an HTML page came back instead of a rules text (an error page?)")
    with tempfile.TemporaryDirectory(prefix="kb-update-") as tmp:
        path = Path(tmp) / "download.txt"
        path.write_bytes(body)
        try:
            docs = read_source(path)
            from kb.sources.decode import read_text

            text = read_text(path)
        except SourceError as exc:
            line = f" (line {exc.problem.line})" if exc.problem.line else ""
            raise UpdateError(
                url, f"not a readable rules text: {exc.problem.message}{line}"
            ) from None
        except (OSError, UnicodeError, ValueError) as exc:
            raise UpdateError(url, f"not a readable rules text: {exc}") from None
    if len(docs) != 1 or docs[0].kind != "cr" or not docs[0].date:
        raise UpdateError(url, "not a complete, dated Comprehensive Rules text")
    doc = docs[0]
    errors = [p for p in doc.problems if p.severity == "error"]
    if errors:
        line = f" (line {errors[0].line})" if errors[0].line else ""
        raise UpdateError(url, f"does not read cleanly: {errors[0].message}{line}")
    raw = raw_counts(text)
    if not raw:
        raise UpdateError(url, "truncated or not a rules text: no Credits and Glossary headings")
    read = {
        "rules": sum(1 for r in doc.rules if re.fullmatch(r"\d{3}(\.\d{1,3}[a-z]?)?", r.number)),
        "examples": sum(len(r.examples) for r in doc.rules),
        "glossary": len(doc.glossary),
    }
    for what, count in raw.items():
        if read[what] != count:
            raise UpdateError(
                url, f"reads with loss: {count} {what} in the text, {read[what]} read"
            )
    return doc


# ---- the update ----------------------------------------------------------------------------
def _state(folder: Path) -> dict[str, Any]:
    try:
        return json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _newest_held(instance: Path) -> tuple[str | None, set[str]]:
    from kb.build import load

    kb = load(instance)
    dates = {e.date for e in kb.editions_of("en", full_only=True) if e.date}
    return (max(dates) if dates else None), dates


def update(
    instance: Path,
    *,
    url: str | None = None,
    check: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Any = None,
) -> UpdateResult:
    """Find, fetch, check and add the newest official rules text (``check``: only find out).

    Nothing is written unless a newer text passed every check; the build is the usual atomic one,
    so a failure there leaves the instance as it was (and the downloaded file is removed again).
    """
    from kb.build import BuildError, build

    instance = Path(instance)
    page_url = rules_url(url)
    newest, held = _newest_held(instance)
    result = UpdateResult("current", page_url, newest_held=newest)

    page = _get(page_url, timeout)
    if _looks_binary(page.body):
        raise UpdateError(page_url, "the rules page is not an HTML page")
    link = find_rules_link(page_url, page.body.decode("utf-8", errors="replace"))
    result.link = link
    if link.date and newest and link.date <= newest:
        return result  # the page's newest text is no newer than what we hold: nothing to fetch

    folder = downloads_dir(instance)
    state = _state(folder)
    conditional: dict[str, str] = {}
    if state.get("link") == link.url:
        if state.get("etag"):
            conditional["If-None-Match"] = state["etag"]
        if state.get("last_modified"):
            conditional["If-Modified-Since"] = state["last_modified"]
    answer = _get(link.url, timeout, conditional)
    if answer.status == 304:
        result.notes.append("not modified since the last download")
        return result
    doc = check_text(link.url, answer.body, answer.headers.get("content-type", ""))
    result.date = doc.date
    remember = {
        "page": page_url,
        "link": link.url,
        "etag": answer.headers.get("etag"),
        "last_modified": answer.headers.get("last-modified"),
        "date": doc.date,
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if doc.date in held or (newest and doc.date <= newest):
        if not check:
            _write_atomic(folder / STATE_FILE, json.dumps(remember, indent=1).encode())
        return result
    if check:
        result.status = "available"
        return result

    target = folder / f"MagicCompRules-{doc.date}.txt"
    existed = target.exists()
    _write_atomic(target, answer.body)
    try:
        build(instance, [target], progress=progress)
    except BaseException as exc:
        if not existed:  # the build is atomic: the instance never saw the file
            target.unlink(missing_ok=True)
        if isinstance(exc, BuildError):
            raise UpdateError(link.url, f"the build refused it: {exc}") from None
        raise
    if doc.date not in _newest_held(instance)[1]:  # it read cleanly above, so not expected
        raise UpdateError(link.url, f"the build left {target} out (see `kb build`)")
    _write_atomic(
        folder / STATE_FILE, json.dumps({**remember, "file": target.name}, indent=1).encode()
    )
    result.status = "updated"
    result.file = target
    return result


def _looks_binary(body: bytes) -> bool:
    return b"\x00" in body[:4096]
