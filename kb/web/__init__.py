"""The web app: browse, search and link the rules in English, French and Japanese.

Public entry points: :func:`create_app` (the Flask factory), :func:`serve` (the production server, :mod:`kb.web.serving`)
and :func:`render_get` (render one URL without a server, for ``kb serve --get PATH``).

Libraries: Flask's, Jinja's and waitress's public API only, save one waitress internal kept for
a measured gain in :mod:`kb.web.hooks` (its figures there; ``tests/web/test_hooks.py`` fails,
naming the installed version, when waitress changes it).

Layer: may import :mod:`kb.build`, :mod:`kb.search`, :mod:`kb.engine`, :mod:`kb.store` and
everything below; only :mod:`kb.export.runner` and :mod:`kb.cli.main` import it.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from kb.web.app import create_app
from kb.web.openapi import Endpoint, Param
from kb.web.pages.search import KINDS as SEARCH_KINDS
from kb.web.serving import serve

__all__ = ["URLS", "create_app", "render_get", "serve"]

#: Every URL of the app and what it answers (a test fails when a route is missing here). Pages
#: under ``/<locale>/`` (en, fr, ja) have a JSON twin marked "+ .json": ``{"ok": true, ...}``, or
#: ``{"ok": false, "error", "error_local", "status"}`` on errors ("error" always English,
#: "error_local" in the URL's language), linked both ways by ``Link: rel="alternate"``.
#: A rule's twin has the shape of ``kb rule --json`` (:func:`kb.knowledge.serialise.rule_json`) and an edition
#: anywhere the shape of ``kb editions --json`` (:func:`kb.knowledge.serialise.edition_json`); what only the page
#: shows (labels, links, lag, rendered HTML) is under their ``"page"`` key.
#: A row that answers JSON is an :class:`~kb.web.openapi.Endpoint`: the README prints its text and
#: ``/api/openapi.json`` is generated from what it carries (tests/web/test_openapi.py).
URLS: dict[str, str] = {
    "/": "redirect to /<locale>/ chosen from Accept-Language",
    "/<locale>/": Endpoint(
        "home: search box, newest editions, table of contents (+ index.json)",
        json_path="/<locale>/index.json",
        response="Home",
        statuses=(),
    ),
    "/<locale>/rules/": Endpoint(
        "every section and rule; maps #R1173a anchors (+ rules.json)",
        json_path="/<locale>/rules.json",
        response="RulesIndex",
        statuses=(),
    ),
    "/<locale>/rules/<number>": Endpoint(
        "the current rule by canonical number (+ .json: kb rule --json "
        "and 'page', history folded into runs and traces behind links unless ?history=all); an old number that is no canonical, or any number with ?edition=DATE, "
        "redirects to the rule it became",
        json_path="/<locale>/rules/<number>.json",
        response="Rule",
        params=(
            Param("edition", "Read the number in this edition (an old number) and redirect."),
            Param(
                "history",
                "all: every history entry and the engine traces (the shape of kb rule --json); "
                "else the history folded into runs and each example's trace behind its url.",
                {"enum": ["", "all"]},
            ),
        ),
        statuses=(301, 302, 400, 404),
    ),
    "/<locale>/<edition>/rules/<number>": Endpoint(
        "a rule as one edition printed it (+ .json, as above)",
        json_path="/<locale>/<edition>/rules/<number>.json",
        response="Rule",
        params=(
            Param(
                "history",
                "all: every history entry and the engine traces; else runs and links.",
                {"enum": ["", "all"]},
            ),
        ),
        statuses=(301, 404),
    ),
    "/<locale>/compare/<number>": Endpoint(
        "a section, or a rule and its subrules, side by side in two or three languages "
        "(?langs=en,ja; default en,fr,ja): one row per English rule, its counterpart in each "
        "other column or “not translated” (+ .json)",
        json_path="/<locale>/compare/<number>.json",
        response="SideBySide",
        params=(
            Param(
                "langs",
                "The columns: two or three different languages of en, fr, ja, comma-separated.",
            ),
        ),
        statuses=(301, 400, 404),
    ),
    "/<locale>/search": Endpoint(
        "q, lang, kind, edition, page: results grouped by rule (+ search.json)",
        json_path="/<locale>/search.json",
        response="SearchResults",
        params=(
            Param("q", 'Words, a rule number, a glossary term, "a phrase", -exclusion, prefix*.'),
            Param("lang", "Only texts of this language.", {"enum": ["", "en", "fr", "ja"]}),
            Param(
                "kind",
                f"Only hits of this kind: {', '.join(SEARCH_KINDS)} (rules: every numbered "
                "section, rule and subrule).",
                {"enum": ["", *SEARCH_KINDS]},
            ),
            Param("edition", "Only this edition (id, date or version)."),
            Param("page", "Page of results, from 1.", {"type": "integer", "minimum": 1}),
        ),
        statuses=(400, 503),
    ),
    "/<locale>/suggest": Endpoint(
        "OpenSearch suggestions: [q, [completions]]",
        json_path="/<locale>/suggest",
        response="Suggestions",
        params=(
            Param("q", "The prefix typed so far."),
            Param("lang", "Language of the completions (default: the locale)."),
        ),
        statuses=(400,),
        envelope=False,
    ),
    "/<locale>/glossary/": Endpoint(
        "every glossary entry (+ glossary.json)",
        json_path="/<locale>/glossary.json",
        response="GlossaryIndex",
        statuses=(),
    ),
    "/<locale>/glossary/<key>": Endpoint(
        "one entry; aliases and names in the locale's language (joueur actif) redirect; "
        "?lang= reads the key in that language's glossary (+ .json)",
        json_path="/<locale>/glossary/<key>.json",
        response="GlossaryEntry",
        params=(
            Param(
                "lang",
                "Read the key in this language (the French index links the English “Pile” as "
                "pile?lang=en: in French, pile is the stack).",
                {"enum": ["", "en", "fr", "ja"]},
            ),
        ),
        statuses=(301, 400, 404),
    ),
    "/<locale>/cards/": Endpoint(
        "a build with cards (kb build --cards): ?q= finds cards by name in English, French or "
        "Japanese, in part or misspelt (+ cards.json)",
        json_path="/<locale>/cards.json",
        response="CardIndex",
        params=(Param("q", "A card name in any of the three languages."),),
        statuses=(400, 404),
    ),
    "/<locale>/cards/<name>": Endpoint(
        "one card: Oracle text, printed name and text in the locale's language, rulings, the "
        "rules it uses by why, the examples naming it; another of its names redirects (+ .json)",
        json_path="/<locale>/cards/<name>.json",
        response="Card",
        statuses=(301, 404),
    ),
    "/<locale>/editions/": Endpoint(
        "editions per language and how far each lags; ?from=&to= (the "
        "comparison form) redirects to that comparison (+ editions.json)",
        json_path="/<locale>/editions.json",
        response="Editions",
        params=(
            Param("from", "With to: the older edition of a comparison (id or date)."),
            Param("to", "With from: the newer edition of a comparison (id or date)."),
        ),
        statuses=(302, 400),
    ),
    "/<locale>/editions/<span>": Endpoint(
        "FROM..TO, any two editions of one language either way (ids or "
        "dates): edited, created, deleted rules with titles and word diffs, pure moves folded "
        "(+ .json)",
        json_path="/<locale>/editions/<span>.json",
        response="Changes",
    ),
    "/<locale>/editions/<edition>/rules/": Endpoint(
        "one edition's contents (any edition, not only the newest), each section and rule "
        "linked to its page in that edition; /<locale>/rules/?edition=DATE redirects here "
        "(+ .json)",
        json_path="/<locale>/editions/<edition>/rules.json",
        response="EditionContents",
        statuses=(301, 404),
    ),
    "/<locale>/editions/<edition>/rules/all": Endpoint(
        "every rule of one edition on one page, numbers inline and an R1173a anchor per rule, "
        "for printing and find (+ .json)",
        json_path="/<locale>/editions/<edition>/rules/all.json",
        response="EditionRules",
        statuses=(301, 404),
    ),
    "/<locale>/commentary/<comment_id>": Endpoint(
        "one commentary paragraph (wiki prose about rules) and the rules it explains: what a "
        "commentary search hit links to (+ .json)",
        json_path="/<locale>/commentary/<comment_id>.json",
        response="Commentary",
    ),
    "/<locale>/tournament/": Endpoint(
        "every tournament-rules text the corpus holds (+ tournament.json)",
        json_path="/<locale>/tournament.json",
        response="TournamentIndex",
        statuses=(),
    ),
    "/<locale>/tournament/<text>": Endpoint(
        "one tournament-rules text: a heading per section (#s-4.2), an anchor per item "
        "(#fr-4.2-5): what tournament search hits and MTR citations link to (+ .json)",
        json_path="/<locale>/tournament/<text>.json",
        response="Tournament",
    ),
    "/<locale>/examples/": Endpoint(
        "executable examples (+ examples.json)",
        json_path="/<locale>/examples.json",
        response="ExamplesIndex",
        statuses=(),
    ),
    "/<locale>/examples/<example_id>": Endpoint(
        "one example and its engine trace (+ .json)",
        json_path="/<locale>/examples/<example_id>.json",
        response="Example",
    ),
    "/<locale>/play": Endpoint(
        "the playground: write or edit a scenario, run it on the engine, read its trace with "
        "the rules linked; ?s= a permalink, ?example=ID&block=N an example's scenario (+ "
        "play.json; POST the form field scenario to run it without the script)",
        json_path="/<locale>/play.json",
        response="Play",
        params=(
            Param("s", "A permalink: the scenario deflated (raw) in base64url."),
            Param("example", "Open this example's scenario."),
            Param("block", "Which of the example's scenarios, from 1.", {"type": "integer"}),
        ),
        statuses=(400, 404, 429, 503),
    ),
    "/<locale>/opensearch.xml": "OpenSearch description (browsers add the site as a search engine)",
    "/opensearch.xml": "the same, English",
    "/r/<number>": Endpoint(
        "permalink: the current rule in the visitor's language; a canonical number "
        "wins, else an old number goes to the rule it became (with ?via=NUMBER when that number "
        "named other rules too: the page names them), a misprinted number to the rule that "
        "printed it (?lang=, ?edition=, R1173a anchors, .json)",
        json_path="/r/<number>.json",
        response="Rule",
        params=(
            Param("lang", "The language of the page (default: Accept-Language)."),
            Param("edition", "Read the number in this edition (an old number)."),
        ),
        statuses=(302, 400, 404),
    ),
    "/r/": "?number=117.3a, or #R1173a mapped by a script",
    "/api/linkify": Endpoint(
        "POST text (JSON or form; lang, edition, format=html): every rule reference linked",
        json_path="/api/linkify",
        method="post",
        response="Linkify",
        body="LinkifyRequest",
        statuses=(400, 405, 413),
        envelope=False,
    ),
    "/api/run": Endpoint(
        "POST a scenario (JSON or form; locale): run it on the engine within 200 ms of CPU; "
        "its problems, trace with rule links and permalink (429 with Retry-After when busy)",
        json_path="/api/run",
        method="post",
        response="Run",
        body="RunRequest",
        statuses=(400, 405, 413, 429, 503),
        envelope=False,
    ),
    "/api/oembed": Endpoint(
        "oEmbed of a rule, glossary, comparison or example page: url, maxwidth, maxheight "
        "(what a pasted link shows; the pages name it in their meta tags)",
        json_path="/api/oembed",
        response="OEmbed",
        params=(
            Param("url", "The page's address on this site.", required=True),
            Param("format", "Only json.", {"enum": ["json"]}),
            Param("maxwidth", "Widest card wanted, in pixels.", {"type": "integer"}),
            Param("maxheight", "Tallest card wanted, in pixels.", {"type": "integer"}),
        ),
        statuses=(400, 404, 501),
        envelope=False,
    ),
    "/api/openapi.json": Endpoint(
        "this table as an OpenAPI 3.1 description of every JSON endpoint",
        json_path="/api/openapi.json",
        response="OpenAPI",
        statuses=(),
        envelope=False,
    ),
    "/api/": "the API described for people: endpoints, parameters, error envelope, notes codes",
    "/static/<path:filename>": "the stylesheet and the scripts (kb-embed.js: rule links and "
    "previews on any site)",
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
