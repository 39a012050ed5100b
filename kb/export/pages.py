"""What an export renders and how: the app of an instance asked through its test client
(:class:`Site`), and the URLs to start the crawl from (every page the knowledge base names)."""

from __future__ import annotations

import contextlib
import functools
import html
import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.export.versions import Versions
from kb.web.i18n import LOCALES

#: What a URL path of the export may hold unquoted.
SAFE = "/:@!$&'()*+,;=-._~"
_HREF = re.compile(r'href="(/[^"#]*)')


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

    def __init__(self, instance: Path, base_url: str = "http://localhost") -> None:
        from kb.web import create_app

        # The pages' absolute URLs (canonical, og:url, oEmbed) are made for the host the site
        # will live on; the app is asked as if it were that host (its scheme and host: the
        # paths of the export are the app's own).
        parts = urllib.parse.urlsplit(base_url)
        self.base_url = f"{parts.scheme}://{parts.netloc}"
        from kb.web.resources import get_kb

        # EXPORT: a page per version of a rule links to the current rule's history and examples
        # rather than repeating them (kb.web.pages.rules)
        self.app = create_app({"INSTANCE": Path(instance), "PAGE_CACHE": False, "EXPORT": True})
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
        response = self.client.get(path, headers=headers, base_url=self.base_url)
        location = response.headers.get("Location")
        if location:
            location = urllib.parse.urlsplit(location)._replace(scheme="", netloc="").geturl()
        body = response.get_data()
        response.close()  # a static file's handle, say
        return Rendered(response.status_code, body, location, response.mimetype)

    def page_and_twin(self, path: str) -> tuple[bytes, bytes] | None:
        """A page and its JSON twin, from one reading of what it shows (the server's two
        requests read it twice): their bodies, the bytes the server sends, or None when the URL
        is not a page of the app's twin views it shows (a redirect, an error: ask :meth:`get`)."""
        from flask import g, request

        from kb.web.pages.base import Page, respond

        with self.app.test_request_context(path, base_url=self.base_url):
            endpoint = request.url_rule.endpoint if request.url_rule else ""
            view = getattr(self.app.view_functions.get(endpoint), "page_view", None)
            if view is None or self.app.preprocess_request() is not None:
                return None
            try:
                page = view(**(request.view_args or {}), fmt="html")
            except Exception:  # an error page: the app's own handlers make it
                return None
            if not isinstance(page, Page) or page.status != 200:
                return None
            body = respond(page, "html").get_data()
            # The twin in the same request: what its own request would set apart from the
            # view's (same endpoint less ``_json``, arguments and locale) is only that it is JSON.
            # A second request context cost a tenth of a version page.
            g.is_json = True
            return body, respond(page, "json").get_data()

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

        with self.app.test_request_context(path, base_url=self.base_url):
            self.app.preprocess_request()
            context.setdefault("alternates", swapped_locales())
            return render_template(name, **context).encode()

    @property
    def etag_seed(self) -> str:
        return str(self.app.config["ETAG_SEED"])


# ---- what to export --------------------------------------------------------------------------
def seed_urls(kb: Any, versions: Versions | None = None) -> list[str]:
    """Every page the knowledge base names: the crawl starts here and follows links from it.

    With ``versions``, a pinned rule is named only where its version's page is (the other
    pinned URLs are redirects of ``_redirects``)."""
    from kb.knowledge.printed import printed_in
    from kb.text.rulenum import try_parse

    urls: list[str] = []
    misprints = {p for ed_id in kb.editions for p in printed_in(kb, ed_id)}
    for loc in LOCALES:
        urls += [f"/{loc}/{p}" for p in ("", "rules/", "glossary/", "editions/", "examples/")]
        urls += [
            f"/{loc}/rules/{n}"
            for n in kb.concordance
            if try_parse(n) is not None and str(try_parse(n)) == n
        ]
        for ed in kb.editions.values():
            urls += [
                f"/{loc}/{ed.id}/rules/{n}"
                for n in kb.ordered_numbers(ed.id)
                if versions is None or versions.target(ed.id, n) == (loc, ed.id)
            ]
        # numbers of older editions: the server sends them to the rule they became
        urls += [f"/{loc}/rules/{n}" for n in permalink_numbers(kb) if n not in kb.concordance]
        # numbers printed by mistake (505.54): the server sends them to the rule that printed it
        urls += [f"/{loc}/rules/{n}" for n in sorted(misprints) if n not in kb.concordance]
        urls += [f"/{loc}/glossary/{alias}" for alias in _glossary_aliases(kb)]
        urls += [f"/{loc}/editions/{span}" for span in kb.changes]
        urls += [f"/{loc}/examples/{ex.id}" for ex in kb.examples]
        urls += [f"/{loc}/play"]
        urls += [f"/{loc}/cards/{slug}" for slug in ["", *card_slugs(kb)]] if card_slugs(kb) else []
    return [quote_path(u) for u in urls]


def card_slugs(kb: Any) -> list[str]:
    """The URL names of the build's cards (none without ``kb build --cards``)."""
    from kb.store.cards import CardStore

    store = CardStore.of(kb)
    if store is None:
        return []
    cached = kb.__dict__.get("_export_card_slugs")
    if cached is None:
        cached = kb.__dict__["_export_card_slugs"] = [slug for slug, _ in store.slugs()]
    return list(cached)


def quote_path(path: str) -> str:
    """A URL path as the export spells it: quoted once, whatever it came as."""
    return urllib.parse.quote(urllib.parse.unquote(path), safe=SAFE)


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


def internal_links(page: str) -> Iterable[str]:
    """The site's own links of a page, as URLs (``&#39;`` and ``&amp;`` read as ``'`` and ``&``)."""
    for link in _HREF.findall(page):
        yield html.unescape(link)


def is_page_link(path: str) -> bool:
    first = path.split("/", 2)[1] if path.count("/") >= 1 else ""
    if first not in LOCALES:
        return False
    rest = path.split("/", 2)[2] if path.count("/") >= 2 else ""
    return not rest.startswith(("search", "suggest", "opensearch.xml"))
