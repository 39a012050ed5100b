"""The web app: browse, search and link the rules in English, French and Japanese.

Public entry points: :func:`create_app` (the Flask factory), :func:`serve` (a production server)
and :func:`render_get` (render one URL without a server, for ``kb serve --get PATH``).
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from flask import Flask

from kb.web.app import create_app

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
    "/<locale>/editions/": "editions per language and how far each lags (+ editions.json)",
    "/<locale>/editions/<span>": "FROM..TO: moved, edited, created, deleted rules (+ .json)",
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


def serve(instance: Path, host: str = "127.0.0.1", port: int = 8000, debug: bool = False) -> None:
    """Serve an instance with waitress (or Flask's reloading server with ``debug``)."""
    started = time.perf_counter()
    app = create_app({"INSTANCE": Path(instance)})
    pool = app.extensions["kb_search"]
    if pool.available:
        try:  # open the index now rather than on the first visitor's search
            pool.get()
        except Exception as exc:  # reported on the search page; the site still browses
            print(f"kb: search unavailable: {exc}", file=sys.stderr)
    # The knowledge base and index are read-only from here on: move their millions of objects out
    # of the collector's reach, or every full collection walks them all (100 ms pauses at p99).
    gc.collect()
    gc.freeze()
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"
    print(f"kb: serving {instance} at {url} (ready in {time.perf_counter() - started:.2f} s)")
    sys.stdout.flush()
    if debug:
        app.run(host=host, port=port, debug=True, use_reloader=True)
        return
    from waitress import serve as waitress_serve

    # Pages come from the in-process cache, so a few threads keep both cores busy.
    waitress_serve(app, host=host, port=port, threads=8, ident="kb", channel_timeout=30)


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
