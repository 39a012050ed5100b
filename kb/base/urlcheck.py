"""The checks of the URLs a user gives: a page to fetch (``kb update --url``) and the root URL a
site lives at (``kb export --base-url``, the Markdown extension's ``base_url``), one function for
each so every entry point refuses the same values with the same words."""

from __future__ import annotations

import urllib.parse

__all__ = ["base_url_problem", "url_problem"]


def url_problem(url: str, example: str = "https://magic.wizards.com/en/rules") -> str | None:
    """Why ``url`` is not an http(s) URL with a host that urllib can ask (None: it is one)."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here, not in urlopen
    except ValueError as exc:
        return f"not a valid URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"not an http(s) URL with a host, such as {example}"
    return None


def base_url_problem(
    url: str, example: str = "https://rules.example.org", *, embedded: bool = False
) -> str | None:
    """Why ``url`` cannot be the root of a kb site (None: it can): an http(s) URL with a host, no
    path, no query and no fragment, since the site's pages link to each other from the root of
    their host and every link adds a path after it.

    ``embedded`` is for links written into another site's pages (the Markdown extension): there
    a path is allowed (``https://example.org/kb``, a proxy's prefix), and so is a path from the
    root of that site (``/kb/``); a bare word (``notaurl``), another scheme or ``//host`` is not.
    """
    url = url.strip()
    if embedded and url.startswith("/") and not url.startswith("//"):
        if any(c.isspace() for c in url):
            return "a path without spaces"
        if any(c in url for c in "?#"):
            return "it can't have a query (?…) or a fragment (#…)"
        return None
    problem = url_problem(url, example=example)
    parts = urllib.parse.urlsplit(url) if problem is None else None
    if parts is not None and not embedded and parts.path.strip("/"):
        problem = "the site's pages link from the root of their host, so it can't have a path"
    if parts is not None and (parts.query or parts.fragment or url.endswith(("?", "#"))):
        # Paths are added after it ("/en/rules/…"; the sitemap, robots.txt, OpenSearch): after
        # "?q=1" or "#top" they would be no page.
        problem = "it can't have a query (?…) or a fragment (#…)"
    if problem and embedded:
        problem += " (or a path from this site's root, such as /kb)"
    return problem
