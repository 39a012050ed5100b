"""The redirects of an export: the ``_redirects`` file that CDNs read (Netlify, Cloudflare Pages
and the hosts that copied their format), and :class:`StaticHost`, which answers a URL the way
such a host serves the export (what the tests and the benchmark compare with the server).

Three kinds of lines, in this order (a host takes the first that matches):

- ``/en/rules/116.3b /en/rules/117.3b 301!``: a redirect the server makes. The export also
  writes a redirect page there, for hosts that read no ``_redirects``; ``!`` makes the host
  answer with the redirect rather than that page.
- ``/:locale/en-2019-06-14/rules/117.3b /en/en-2019-01-25/rules/117.3b 301``: a rule an
  edition printed as an earlier one did, in any locale, goes to its version's page (the page of
  that version itself is a file, which a host serves before a redirect that is not forced).
- ``/:locale/rules/R1173a /:locale/rules/117.3a 301``: the anchors of other rule sites.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kb.export.pages import quote_path
from kb.export.static import file_for
from kb.export.versions import Versions

REDIRECTS = "_redirects"
_CANONICAL = re.compile(rb'<link rel="canonical" href="([^"]+)"')
_STUB = b'name="kb-redirect"'


def norm(path: str) -> str:
    """One spelling of a URL path (quoted the export's way, no query)."""
    return quote_path(urllib.parse.urlsplit(path).path)


def version_lines(kb: Any, versions: Versions) -> Iterator[str]:
    """Every pinned rule URL, in any locale, to its version's page (and the JSON twins)."""
    for ed in kb.editions.values():
        q_ed = urllib.parse.quote(ed.id, safe="")
        for number in kb.ordered_numbers(ed.id):
            home, version = versions.target(ed.id, number)
            q_n = urllib.parse.quote(number, safe="")
            target = f"/{home}/{urllib.parse.quote(version, safe='')}/rules/{q_n}"
            yield f"/:locale/{q_ed}/rules/{q_n} {target} 301"
            yield f"/:locale/{q_ed}/rules/{q_n}.json {target}.json 301"


def number_lines(numbers: Iterable[str]) -> Iterator[str]:
    """``/<locale>/rules/R1173a``, the anchors of other rule sites, to the rule's URL."""
    for number in numbers:
        m = re.fullmatch(r"(\d{3})(?:\.(\d{1,3})([a-z]?))?", number)
        if m:
            anchor = "R" + number.replace(".", "")
            yield f"/:locale/rules/{anchor} /:locale/rules/{number} 301"


def server_lines(redirects: Iterable[tuple[str, str]]) -> Iterator[str]:
    """The server's redirects (each also a page of the export, hence forced)."""
    for source, target in redirects:
        yield f"{norm(source)} {_quote_target(target)} 301!"


def _quote_target(target: str) -> str:
    parts = urllib.parse.urlsplit(target)
    return urllib.parse.urlunsplit(("", "", norm(parts.path), parts.query, parts.fragment))


def write_redirects(kb: Any, versions: Versions, writer: Any, moves: list[tuple[str, str]]) -> None:
    """The export's ``_redirects``: the server's redirects, the version pages, the anchors."""
    from kb.export.pages import permalink_numbers

    lines = [
        "# kb export: the redirects of the site, for hosts that read _redirects "
        "(Netlify, Cloudflare Pages)",
        *dict.fromkeys(server_lines(moves)),
        *version_lines(kb, versions),
        *number_lines(dict.fromkeys([*kb.concordance, *permalink_numbers(kb)])),
    ]
    writer.put(REDIRECTS, ("\n".join(lines) + "\n").encode())


class StaticHost:
    """How a host that reads ``_redirects`` answers the export: 200 for a page, the redirect of a
    redirect page or of a ``_redirects`` line, else 404."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.forced: dict[str, str] = {}
        self.rules: dict[str, str] = {}
        path = out / REDIRECTS
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        for line in lines:
            fields = line.split()
            if len(fields) < 3 or line.startswith("#"):
                continue
            table = self.forced if fields[2].endswith("!") else self.rules
            table.setdefault(fields[0].rstrip("/") or "/", fields[1])

    def answer(self, url: str) -> tuple[int, str | None]:
        """(status, location) for a URL path."""
        path = norm(url)
        key = path.rstrip("/") or "/"
        if key in self.forced:
            return 301, self.forced[key]
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
        first, _, rest = key.lstrip("/").partition("/")
        for pattern in (key, f"/:locale/{rest}"):
            target = self.rules.get(pattern)
            if target is not None:
                return 301, target.replace(":locale", first)
        return 404, None

    def final(self, url: str) -> tuple[int, str]:
        """The status and path a client following redirects ends at."""
        path = norm(url)
        for _ in range(10):
            status, location = self.answer(path)
            if location is None or status not in (301, 302):
                return status, path
            path = norm(location)
        return 508, path
