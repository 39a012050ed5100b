"""The OpenAPI 3.1 description of every JSON endpoint, generated from :data:`kb.web.URLS`.

The URL table drives the README's URL list and this document alike: a row that answers JSON is an
:class:`Endpoint` (a ``str``, its description, carrying what OpenAPI needs: the JSON path, method,
parameters, response schema), so the two cannot drift. Served at ``/api/openapi.json`` and, for
readers, at ``/api/`` (``templates/api.html``). This module holds data and one builder; it
imports nothing of Flask.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import kb

__all__ = ["Endpoint", "Param", "document", "json_paths"]

OPENAPI_VERSION = "3.1.0"


@dataclass(frozen=True)
class Param:
    """A query parameter of an endpoint (path parameters are described in :data:`PATH_PARAMS`)."""

    name: str
    description: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False


class Endpoint(str):
    """A row of the URL table whose JSON form is documented: the row's text (what the README
    prints) plus the JSON path (``.json`` twin or the URL itself), the method, the query
    parameters, the response schema and the statuses it may answer."""

    json_path: str
    method: str
    params: tuple[Param, ...]
    response: str
    statuses: tuple[int, ...]
    body: str | None
    envelope: bool

    def __new__(
        cls,
        what: str,
        *,
        json_path: str,
        response: str,
        method: str = "get",
        params: tuple[Param, ...] = (),
        statuses: tuple[int, ...] = (404,),
        body: str | None = None,
        envelope: bool = True,
    ) -> Endpoint:
        row = super().__new__(cls, what)
        row.json_path = json_path
        row.method = method
        row.params = params
        row.response = response
        row.statuses = statuses
        row.body = body
        row.envelope = envelope
        return row


#: Every path parameter any URL uses, described once.
PATH_PARAMS: dict[str, tuple[str, dict[str, Any]]] = {
    "locale": ("Interface language: also the language of the texts where one exists.",
               {"type": "string", "enum": ["en", "fr", "ja"]}),
    "number": ("A rule number in any spelling: 117, 117.3, 117.3a, 117.3 a, R1173a, １１７．３ａ. "
               "A non-canonical spelling or an old number redirects.", {"type": "string"}),
    "edition": ("An edition id (en-2019-07-12), or a date or version of the locale's editions.",
                {"type": "string"}),
    "key": ("A glossary key, term or alias (aliases redirect to the entry's key).",
            {"type": "string"}),
    "span": ("Two editions of one language, FROM..TO (en-2019-06-14..en-2019-07-12).",
             {"type": "string"}),
    "example_id": ("The id of an executable example.", {"type": "string"}),
    "name": ("A card's URL name (sphere-of-resistance); any of its names in en/fr/ja redirects.",
             {"type": "string"}),
}  # fmt: skip


# ---- schemas -----------------------------------------------------------------------------------
def _obj(props: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": dict(props)}
    if required:
        out["required"] = list(required)
    return out


def _arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _opt(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema that may also be null."""
    return {"anyOf": [schema, {"type": "null"}]}


STR, INT, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
LINK = _obj({"number": STR, "url": STR}, ("number", "url"))


def _schemas(note_codes: Mapping[str, str]) -> dict[str, Any]:
    """The components: the envelopes, then one schema per response."""
    edition = _obj(
        {
            "id": STR,
            "lang": STR,
            "date": _opt(STR),
            "kind": STR,
            "title": _opt(STR),
            "numbering": _opt(STR),
            "version": _opt(STR),
            "translates": _opt(STR),
            "rules": INT,
            "page": {"type": "object", "description": "label and date for readers"},
        },
        ("id", "lang", "kind"),
    )
    ref = _obj(
        {
            "number": STR,
            "label": STR,
            "start": INT,
            "end": INT,
            "resolved": BOOL,
            "canonical": _opt(STR),
        },
        ("number", "label", "start", "end"),
    )
    toc = _arr(
        _obj(
            {
                "number": STR,
                "title": STR,
                "lang": STR,
                "url": _opt(STR),
                "rules": _arr(_obj({"number": STR, "title": STR, "lang": STR, "url": _opt(STR)})),
            }
        )
    )
    codes = sorted(note_codes)
    return {
        "Envelope": {
            **_obj({"ok": {"const": True}, "locale": PATH_PARAMS["locale"][1]}, ("ok", "locale")),
            "description": "Every page's JSON twin: ok and the locale, then the page's data.",
        },
        "Error": {
            **_obj(
                {
                    "ok": {"const": False},
                    "error": {
                        **STR,
                        "description": "The message in English, whatever the URL's "
                        "language: tools match on it and logs quote it.",
                    },
                    "error_local": {
                        **STR,
                        "description": "The same message in the URL's language.",
                    },
                    "status": {**INT, "description": "The HTTP status, repeated."},
                    "suggestions": {
                        "type": "array",
                        "description": "Nearby rules, entries or "
                        "examples, when the error is a miss.",
                    },
                },
                ("ok", "error", "error_local", "status"),
            ),
            "description": "The error envelope of every JSON URL (never an HTML page, never a "
            "stack trace). Extra keys name what was wrong (number, edition, url, ...).",
            "additionalProperties": True,
        },
        "Edition": edition,
        "Ref": ref,
        "Home": _obj(
            {
                "newest": _arr(_ref("Edition")),
                "toc_edition": _opt(_ref("Edition")),
                "toc": toc,
                "examples": INT,
            },
            ("newest", "toc"),
        ),
        "RulesIndex": _obj({"toc_edition": _opt(_ref("Edition")), "toc": toc}, ("toc",)),
        "Rule": {
            **_obj(
                {
                    "number": STR,
                    "lang": STR,
                    "edition": STR,
                    "edition_date": _opt(STR),
                    "edition_kind": STR,
                    "kind": STR,
                    "title": _opt(STR),
                    "text": STR,
                    "examples": _arr(STR),
                    "parent": _opt(STR),
                    "children": _arr(STR),
                    "refs": _arr(_ref("Ref")),
                    "referenced_by": _arr(STR),
                    "canonical": _opt(STR),
                    "deleted": BOOL,
                    "change": _opt(STR),
                    "history": _arr({"type": "object"}),
                    "translations": {"type": "object"},
                    "terms": _arr(STR),
                    "engine_examples": _arr({"type": "object"}),
                    "source": _obj({"file": STR, "line": _opt(INT)}),
                    "flags": _arr(STR),
                    "page": {
                        "type": "object",
                        "description": "What only the page shows: "
                        "labels, links, lag, rendered HTML.",
                    },
                },
                ("number", "lang", "edition", "kind", "text", "canonical", "refs"),
            ),
            "description": "The shape of `kb rule --json`, with the page's extras under `page`.",
        },
        "CardIndex": _obj(
            {
                "query": STR,
                "count": INT,
                "cards": _arr(
                    _obj({"name": STR, "matched": STR, "lang": STR, "how": STR, "url": STR})
                ),
            },
            ("query", "count", "cards"),
        ),
        "Card": _obj(
            {
                "card": _obj(
                    {
                        "name": STR,
                        "slug": STR,
                        "lang": STR,
                        "printed_name": _opt(STR),
                        "names": {"type": "object", "additionalProperties": STR},
                        "layout": STR,
                        "type_line": STR,
                        "keywords": _arr(STR),
                        "faces": _arr({"type": "object"}),
                        "rulings": _arr(_obj({"date": STR, "text": STR}, ("date", "text"))),
                        "rules": _arr(
                            _obj(
                                {
                                    "number": STR,
                                    "why": STR,
                                    "label": STR,
                                    "face": _opt(STR),
                                    "url": STR,
                                },
                                ("number", "why", "label"),
                            )
                        ),
                        "rules_by_why": _arr({"type": "object"}),
                        "examples": _arr(_obj({"id": STR, "title": STR, "url": STR})),
                        "url": STR,
                    },
                    ("name", "slug", "faces", "rulings", "rules", "rules_by_why"),
                )
            },
            ("card",),
        ),
        "GlossaryIndex": _obj(
            {
                "edition": _opt(_ref("Edition")),
                "entries": _arr(
                    _obj({"key": STR, "term": STR, "lang": STR, "obsolete": BOOL, "url": STR})
                ),
            },
            ("entries",),
        ),
        "GlossaryEntry": _obj(
            {
                "entry": _obj(
                    {
                        "key": STR,
                        "term": STR,
                        "lang": STR,
                        "definition": STR,
                        "html": STR,
                        "aliases": _arr(STR),
                        "obsolete": BOOL,
                        "see": _arr({"type": "object"}),
                        "rules": _arr(LINK),
                    },
                    ("key", "term", "definition"),
                ),
                "edition": _opt(_ref("Edition")),
                "equivalents": _arr(_obj({"lang": STR, "names": _arr(STR)})),
            },
            ("entry",),
        ),
        "Editions": _obj(
            {
                "languages": _arr(
                    _obj({"lang": STR, "language": STR, "editions": _arr(_ref("Edition"))})
                ),
                "comparisons": _arr(_obj({"span": STR, "url": STR})),
            },
            ("languages", "comparisons"),
        ),
        "Changes": _obj(
            {
                "from": _opt(_ref("Edition")),
                "to": _opt(_ref("Edition")),
                "span": STR,
                "counts": _obj({k: INT for k in ("moved", "edited", "created", "deleted")}),
                "changes": {
                    "type": "object",
                    "description": "moved, edited, created, deleted: "
                    "lists of {old, new, url, old_url, diff}",
                },
                "limit": INT,
            },
            ("span", "counts", "changes"),
        ),
        "ExampleSummary": _obj(
            {"id": STR, "title": STR, "passed": BOOL, "rules": _arr(STR), "url": STR},
            ("id", "title", "passed", "rules", "url"),
        ),
        "ExamplesIndex": _obj({"examples": _arr(_ref("ExampleSummary"))}, ("examples",)),
        "Example": _obj(
            {
                "example": {
                    "allOf": [
                        _ref("ExampleSummary"),
                        _obj(
                            {
                                "html": STR,
                                "trace": _arr(
                                    _obj({"step": INT, "text": STR, "rules": _arr(LINK)})
                                ),
                                "rule_links": _arr(LINK),
                            }
                        ),
                    ]
                }
            },
            ("example",),
        ),
        "Note": {
            **_obj(
                {
                    "code": {"type": "string", "enum": codes},
                    "params": {"type": "object"},
                    "text": {**STR, "description": "In English."},
                    "text_local": {**STR, "description": "In the URL's language."},
                },
                ("code", "params", "text"),
            ),
            "description": "Something the search tells the reader. Codes: "
            + "; ".join(f"`{c}`: {note_codes[c]}" for c in codes),
        },
        "SearchResults": _obj(
            {
                "query": STR,
                "filters": _obj({"lang": STR, "kind": STR, "edition": STR}),
                "available": {**BOOL, "description": "False when the index is missing (503)."},
                "total": INT,
                "page": INT,
                "pages": INT,
                "past_end": {
                    **BOOL,
                    "description": "True when page is past the last page (last_page names it).",
                },
                "suggestion": _opt({}),
                "groups": _arr({"type": "object", "description": "Hits grouped by rule."}),
                "message": _opt({**STR, "description": "The notes in English."}),
                "message_local": _opt(STR),
                "notes": _arr(_ref("Note")),
            },
            ("query", "available", "total", "groups", "notes"),
        ),
        "Suggestions": {
            "type": "array",
            "prefixItems": [STR, _arr(STR)],
            "minItems": 2,
            "maxItems": 2,
            "description": "OpenSearch suggestions: [query, [completions]].",
        },
        "LinkifyRequest": _obj(
            {
                "text": {**STR, "maxLength": 100_000},
                "lang": {**STR, "enum": ["en", "fr", "ja"]},
                "edition": _opt({**STR, "description": "Read old numbers in this edition."}),
                "format": {**STR, "enum": ["json", "html"]},
            },
            ("text",),
        ),
        "Linkify": _obj(
            {
                "ok": {"const": True},
                "lang": STR,
                "html": {
                    **STR,
                    "description": "The text, escaped, each reference a link "
                    "(a range is one link, its numbers in data-rules).",
                },
                "refs": _arr(
                    _obj(
                        {
                            "label": STR,
                            "number": STR,
                            "canonical": _opt(STR),
                            "url": _opt(STR),
                            "start": INT,
                            "end": INT,
                        },
                        ("label", "number", "canonical", "url", "start", "end"),
                    )
                ),
                "cards": _arr(
                    _obj(
                        {"label": STR, "name": STR, "slug": STR, "url": STR},
                        ("label", "name", "slug", "url"),
                    )
                ),
            },
            ("ok", "lang", "html", "refs"),
        ),
        "OEmbed": _obj(
            {
                "version": {"const": "1.0"},
                "type": {"const": "rich"},
                "title": STR,
                "provider_name": STR,
                "provider_url": STR,
                "cache_age": INT,
                "width": INT,
                "height": INT,
                "html": STR,
                "description": STR,
                "url": STR,
                "kind": {"enum": ["rule", "glossary", "changes", "example"]},
                "number": _opt(STR),
                "lang": STR,
                "locale": STR,
            },
            ("version", "type", "title", "html", "width", "height", "url", "description"),
        ),
        "OpenAPI": {"type": "object", "description": "This document."},
    }


# ---- the document ------------------------------------------------------------------------------
_PARAM = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")


def json_paths(urls: Mapping[str, str]) -> dict[str, Endpoint]:
    """The documented JSON paths (OpenAPI templates, ``/{locale}/rules/{number}.json``) and the
    rows they come from."""
    return {
        _PARAM.sub(r"{\1}", row.json_path): row
        for row in urls.values()
        if isinstance(row, Endpoint)
    }


def _operation(path: str, row: Endpoint) -> dict[str, Any]:
    params: list[dict[str, Any]] = []
    for name in re.findall(r"{([a-z_]+)}", path):
        description, schema = PATH_PARAMS[name]
        params.append(
            {"name": name, "in": "path", "required": True, "description": description,
             "schema": schema}
        )  # fmt: skip
    for p in row.params:
        params.append(
            {"name": p.name, "in": "query", "required": p.required, "description": p.description,
             "schema": p.schema}
        )  # fmt: skip
    body = _ref(row.response)
    if row.envelope:
        body = {"allOf": [_ref("Envelope"), body]}
    responses: dict[str, Any] = {
        "200": {"description": "OK", "content": {"application/json": {"schema": body}}}
    }
    for status in row.statuses:
        if status in (301, 302):
            responses[str(status)] = {
                "description": "Redirect to the JSON form of the page the URL names "
                "(another spelling, an old number, an alias).",
                "headers": {"Location": {"schema": STR}},
            }
        elif status == 503:  # the error envelope, with the search's own data (available: false)
            schema = {"allOf": [_ref("Error"), _ref(row.response)]}
            responses["503"] = {
                "description": _STATUS_TEXT_503,
                "content": {"application/json": {"schema": schema}},
            }
        else:
            responses[str(status)] = {"$ref": f"#/components/responses/E{status}"}
    op: dict[str, Any] = {
        "operationId": re.sub(r"[^A-Za-z0-9]+", "_", f"{row.method} {path}").strip("_"),
        "summary": str(row)[:120],
        "description": str(row),
        "parameters": params,
        "responses": responses,
    }
    if row.body:
        op["requestBody"] = {
            "required": True,
            "content": {
                "application/json": {"schema": _ref(row.body)},
                "application/x-www-form-urlencoded": {"schema": _ref(row.body)},
            },
        }
    return op


_STATUS_TEXT = {
    400: "A bad parameter or body: the envelope names it.",
    404: "No such page, rule, entry, comparison or example; suggestions when some are near.",
    405: "Method not allowed.",
    413: "The body is too large.",
    501: "Not implemented (oEmbed formats other than JSON).",
}
_STATUS_TEXT_503 = (
    "Search is unavailable (no index, or a damaged one): the error envelope says why, with the "
    "search's data (available: false)."
)


def document(urls: Mapping[str, str], server: str = "") -> dict[str, Any]:
    """The OpenAPI document of the JSON rows of ``urls`` (:data:`kb.web.URLS`)."""
    from kb.search.notes import TEXTS

    paths: dict[str, Any] = {}
    for path, row in json_paths(urls).items():
        paths.setdefault(path, {})[row.method] = _operation(path, row)
    errors = {
        f"E{status}": {
            "description": text,
            "content": {"application/json": {"schema": _ref("Error")}},
        }
        for status, text in _STATUS_TEXT.items()
    }
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "kb: the Magic: The Gathering Comprehensive Rules in English, French and "
            "Japanese",
            "version": kb.__version__,
            "description": (
                "Every page under /{locale}/ has a JSON twin (the same URL with .json, or "
                'index.json for the home page). A success is {"ok": true, "locale", ...}; an '
                'error is the envelope {"ok": false, "error" (English), "error_local" (the '
                'URL\'s language), "status"}. Responses carry Access-Control-Allow-Origin: *, an '
                "ETag and Cache-Control; pages and twins link each other with Link: "
                'rel="alternate". Search notes (SearchResults.notes) carry a code of the Note '
                "schema's list; tools should match on the code, not the text."
            ),
        },
        "servers": [{"url": server or "/"}],
        "paths": paths,
        "components": {"schemas": _schemas(TEXTS), "responses": errors},
    }
