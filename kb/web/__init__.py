"""The web app: browse, search and link the rules in English, French and Japanese.

Public entry points: :func:`create_app` (the Flask factory), :func:`serve` (the production server, :mod:`kb.web.serving`)
and :func:`render_get` (render one URL without a server, for ``kb serve --get PATH``).
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from kb.web.app import create_app
from kb.web.serving import serve

__all__ = ["URLS", "create_app", "render_get", "serve"]

#: Every URL of the app and what it answers (a test fails when a route is missing here). Pages
#: under ``/<locale>/`` (en, fr, ja) have a JSON twin marked "+ .json": ``{"ok": true, ...}``, or
#: ``{"ok": false, "error", "error_local", "status"}`` on errors ("error" always English,
#: "error_local" in the URL's language), linked both ways by ``Link: rel="alternate"``.
#: A rule's twin has the shape of ``kb rule --json`` (:func:`kb.serialise.rule_json`) and an edition
#: anywhere the shape of ``kb editions --json`` (:func:`kb.serialise.edition_json`); what only the page
#: shows (labels, links, lag, rendered HTML) is under their ``"page"`` key.
URLS: dict[str, str] = {
    "/": "redirect to /<locale>/ chosen from Accept-Language",
    "/<locale>/": "home: search box, newest editions, table of contents (+ index.json)",
    "/<locale>/rules/": "every section and rule; maps #R1173a anchors (+ rules.json)",
    "/<locale>/rules/<number>": "the current rule by canonical number (+ .json: kb rule --json "
    "and 'page'); an old number that is no canonical, or any number with ?edition=DATE, "
    "redirects to the rule it became",
    "/<locale>/<edition>/rules/<number>": "a rule as one edition printed it (+ .json, as above)",
    "/<locale>/search": "q, lang, kind, edition, page: results grouped by rule (+ search.json)",
    "/<locale>/suggest": "OpenSearch suggestions: [q, [completions]]",
    "/<locale>/glossary/": "every glossary entry (+ glossary.json)",
    "/<locale>/glossary/<key>": "one entry; aliases redirect (+ .json)",
    "/<locale>/editions/": "editions per language and how far each lags; ?from=&to= (the "
    "comparison form) redirects to that comparison (+ editions.json)",
    "/<locale>/editions/<span>": "FROM..TO, any two editions of one language either way (ids or "
    "dates): edited, created, deleted rules with titles and word diffs, pure moves folded "
    "(+ .json)",
    "/<locale>/examples/": "executable examples (+ examples.json)",
    "/<locale>/examples/<example_id>": "one example and its engine trace (+ .json)",
    "/<locale>/opensearch.xml": "OpenSearch description (browsers add the site as a search engine)",
    "/opensearch.xml": "the same, English",
    "/r/<number>": "permalink: the current rule in the visitor's language; a canonical number "
    "wins, else an old number goes to the rule it became (?lang=, ?edition=, R1173a anchors, "
    ".json)",
    "/r/": "?number=117.3a, or #R1173a mapped by a script",
    "/api/linkify": "POST text (JSON or form; lang, edition, format=html): every rule reference "
    "linked",
    "/static/<path:filename>": "the stylesheet and the script",
}


_apps: dict[Path, Flask] = {}


def render_get(instance: Path, path: str) -> tuple[int, str]:
    """Render one URL of an instance in-process: ``(status, body)``, like Datasette's ``--get``.

    Redirects (permalinks, aliases, old numbers) are followed, so the caller gets the final page
    rather than a "Redirecting..." stub."""
    key = Path(instance).resolve()
    if key not in _apps:
        _apps[key] = create_app({"INSTANCE": key})
    with _apps[key].test_client() as client:
        response = client.get(path, follow_redirects=True)
        return response.status_code, response.get_data(as_text=True)
