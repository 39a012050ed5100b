"""The redirects of an export: the ``_redirects`` file that CDNs read (Netlify and the hosts that
copied its format), the stubs that stand for the server's other redirects, and
:class:`StaticHost`, which answers a URL the way such a host serves the export (what the tests
and the benchmark compare with the server).

``_redirects`` holds patterns only, one or two per edition, a few hundred lines whatever the
number of rules (CDNs take a few thousand: Netlify advises it, Cloudflare Pages stops at 2,000
static and 100 dynamic lines). A file of the export shadows them, as on Netlify:

- ``/fr/en-2019-06-14/rules/* /en/en-2019-06-14/rules/:splat 301``: a pinned rule in another
  locale than its edition's goes to its edition's page (``*`` takes the ``.json`` twins too);
  the same for an edition's contents and its one-page rules (``/fr/editions/<id>/rules/*``);
- ``/en/en-2019-06-14/rules/* /en/en-2019-05-03/rules/:splat 301``: a rule this edition printed
  as the one before did goes to that edition, which holds its page, a stub, or sends it on (see
  :class:`kb.export.versions.Versions`: at most ``CHAIN`` redirects).

Everything else the server redirects is a file: a stub page (a meta refresh, a canonical link,
the redirect script for ``#R1173a`` anchors) and, for a JSON twin, the JSON it leads to.
"""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kb.export.pages import quote_path
from kb.export.static import file_for
from kb.export.versions import Versions

REDIRECTS = "_redirects"
_CANONICAL = re.compile(rb'<link rel="canonical" href="([^"]+)"')
_STUB = b'name="kb-redirect"'
#: Placeholders of a stub page rendered once per locale, then filled for each URL.
_MARK = "/__kb_target__"


def norm(path: str) -> str:
    """One spelling of a URL path (quoted the export's way, no query)."""
    return quote_path(urllib.parse.urlsplit(path).path)


def _q(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def redirect_lines(kb: Any, versions: Versions, cards: bool = False) -> Iterator[str]:
    """The patterns of ``_redirects`` (see the module docstring), in the order a host tries them.
    With ``cards``, a card's JSON twin in French or Japanese is the English one (its page is in
    each language, its JSON once: 24,000 cards would be 48,000 files more)."""
    from kb.web.i18n import LOCALES

    if cards:
        yield "/fr/cards/* /en/cards/:splat 301"
        yield "/ja/cards/* /en/cards/:splat 301"
    for ed in kb.editions.values():
        home, q_ed = versions.home[ed.id], _q(ed.id)
        for loc in LOCALES:
            if loc != home:
                yield f"/{loc}/{q_ed}/rules/* /{home}/{q_ed}/rules/:splat 301"
                yield f"/{loc}/editions/{q_ed}/rules/* /{home}/editions/{q_ed}/rules/:splat 301"
                yield f"/{loc}/editions/{q_ed}/rules.json /{home}/editions/{q_ed}/rules.json 301"
    for ed in kb.editions.values():
        previous = versions.previous.get(ed.id)
        if previous is not None:
            home = versions.home[ed.id]
            yield f"/{home}/{_q(ed.id)}/rules/* /{home}/{_q(previous)}/rules/:splat 301"


def write_redirects(kb: Any, versions: Versions, writer: Any, cards: bool = False) -> None:
    """The export's ``_redirects``."""
    lines = [
        "# kb export: patterns for hosts that read _redirects (a file shadows a pattern)",
        *redirect_lines(kb, versions, cards),
    ]
    writer.put(REDIRECTS, ("\n".join(lines) + "\n").encode())


class Patterns:
    """The lines of a ``_redirects`` file, matched as Netlify does (``*`` at the end of a path,
    ``:splat`` in the target; the first line that matches wins)."""

    def __init__(self, lines: list[str]) -> None:
        self.rules: list[tuple[re.Pattern[str], str, int]] = []
        for line in lines:
            fields = line.split()
            if len(fields) < 2 or line.startswith("#"):
                continue
            source, target = fields[0], fields[1]
            code = int(fields[2].rstrip("!")) if len(fields) > 2 else 301
            regex = "^" + re.escape(source).replace(r"\*", "(?P<splat>.*)") + "$"
            self.rules.append((re.compile(regex), target, code))

    def match(self, path: str) -> tuple[int, str] | None:
        """(status, location) of the first line that takes ``path``, else None."""
        for regex, target, code in self.rules:
            m = regex.match(path)
            if m is not None:
                splat = m.groupdict().get("splat")
                return code, target.replace(":splat", splat or "")
        return None


# ---- stubs ----------------------------------------------------------------------------------
class Stubs:
    """Small redirect pages, made from one rendering of the redirect page per locale."""

    def __init__(self, site: Any) -> None:
        from kb.export.files import redirect_html
        from kb.web.i18n import LOCALES

        self.shells = {loc: redirect_html(site, f"/{loc}/", _MARK).decode() for loc in LOCALES}

    def page(self, path: str, target: str) -> bytes:
        """The stub page of ``path`` that goes to ``target``."""
        first = path.split("/", 2)[1]
        shell = self.shells.get(first, self.shells["en"])
        return shell.replace(_MARK, html.escape(target)).encode()


def stub_pairs(versions: Versions) -> Iterator[tuple[str, str]]:
    """(URL, its version's URL) of each pinned rule that holds a stub."""
    for edition, number in sorted(versions.stubs):
        home, version = versions.target(edition, number)
        yield (
            f"/{home}/{_q(edition)}/rules/{_q(number)}",
            f"/{home}/{_q(version)}/rules/{_q(number)}",
        )


def anchor_pairs(numbers: list[str]) -> Iterator[tuple[str, str]]:
    """``/<locale>/rules/R1173a`` (the anchors of other rule sites) and the rule's URL."""
    from kb.web.i18n import LOCALES

    for number in numbers:
        if re.fullmatch(r"(\d{3})(?:\.(\d{1,3})([a-z]?))?", number):
            anchor = "R" + number.replace(".", "")
            for loc in LOCALES:
                yield f"/{loc}/rules/{anchor}", f"/{loc}/rules/{_q(number)}"


# ---- how a host serves the export ------------------------------------------------------------
class StaticHost:
    """How a host that reads ``_redirects`` answers the export: 200 for a page, the redirect of a
    stub page or of a ``_redirects`` pattern, else 404."""

    def __init__(self, out: Path) -> None:
        self.out = out
        path = out / REDIRECTS
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        self.patterns = Patterns(lines)

    def answer(self, url: str) -> tuple[int, str | None]:
        """(status, location) for a URL path."""
        path = norm(url)
        try:
            rel = file_for(path)
        except Exception:
            return 404, None
        file = self.out / rel
        if file.is_file():
            data = file.read_bytes()
            if rel.endswith(".html") and _STUB in data[:2000]:
                m = _CANONICAL.search(data)
                return 302, html.unescape(m.group(1).decode()) if m else None
            return 200, None
        found = self.patterns.match(path)
        if found is not None:
            return found
        return 404, None

    def final(self, url: str) -> tuple[int, str]:
        """The status and path a client following redirects (as browsers do, up to 20) ends at."""
        path = norm(url)
        for _ in range(20):
            status, location = self.answer(path)
            if location is None or status not in (301, 302):
                return status, path
            path = norm(location)
        return 508, path


def json_stub(out: Path, target: str) -> bytes | None:
    """The bytes of the export's JSON file at ``target`` (what a client following the redirect
    gets), or None when the export has none."""
    try:
        data = (out / file_for(norm(target))).read_bytes()
    except (OSError, Exception):
        return None
    try:
        json.loads(data)
    except ValueError:
        return None
    return data
