"""The schemas of the OpenAPI description (:mod:`kb.web.openapi`): every JSON answer's shape,
the playground's request and answers included. Data only; split from the builder to keep each
module one job and under 600 lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    "comment_id": ("The id of a commentary paragraph (search hits give it).", {"type": "string"}),
    "text": ("A tournament-rules text: its file's name without extension.", {"type": "string"}),
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
#: A rule an example cites: its URL is null where no page would answer (a rule the built texts
#: do not hold, a tournament rule the corpus has no text of); the number is shown unlinked.
CITED = _obj({"number": STR, "url": _opt(STR)}, ("number", "url"))


#: The side-by-side page (kb.web.pages.sidebyside): a row per English rule, a cell per column.
_SIDE_BY_SIDE = _obj({
    "number": STR, "title": _opt(STR), "langs": _arr(STR), "truncated": BOOL,
    "columns": _arr(_obj({"lang": STR, "language": STR, "edition": _opt(_ref("Edition"))})),
    "rows": _arr(_obj({"number": STR, "anchor": STR, "cells": _arr(_obj(
        {"lang": STR, "missing": BOOL, "number": STR, "html": STR}, ("lang", "missing")))},
        ("number", "anchor", "cells"))),
}, ("number", "langs", "columns", "rows"))  # fmt: skip


def schemas(note_codes: Mapping[str, str]) -> dict[str, Any]:
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
                "cards": INT,
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
        "EditionContents": _obj(
            {"edition": _ref("Edition"), "toc": _arr({"type": "object"}), "all_url": STR},
            ("edition", "toc"),
        ),
        "EditionRules": _obj(
            {
                "edition": _ref("Edition"),
                "contents_url": STR,
                "rules": _arr(
                    _obj(
                        {
                            "number": STR,
                            "depth": INT,
                            "kind": STR,
                            "anchor": STR,
                            "text": STR,
                            "examples": _arr(STR),
                            "url": STR,
                        },
                        ("number", "text", "url"),
                    )
                ),
            },
            ("edition", "rules"),
        ),
        "Commentary": _obj(
            {
                "commentary": _obj(
                    {
                        "id": STR,
                        "lang": STR,
                        "heading": _opt(STR),
                        "text": STR,
                        "source": STR,
                        "rules": _arr(LINK),
                        "terms": _arr(STR),
                    },
                    ("id", "lang", "text"),
                )
            },
            ("commentary",),
        ),
        "TournamentIndex": _obj(
            {
                "texts": _arr(
                    _obj({"id": STR, "lang": STR, "sections": _arr(STR), "items": INT, "url": STR})
                )
            },
            ("texts",),
        ),
        "Tournament": _obj(
            {
                "text": _obj({"id": STR, "lang": STR, "source": STR}),
                "sections": _arr(
                    _obj(
                        {
                            "section": STR,
                            "title": STR,
                            "anchor": STR,
                            "heading_id": _opt(STR),
                            "items": _arr({"type": "object"}),
                        }
                    )
                ),
            },
            ("text", "sections"),
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
        "SideBySide": _SIDE_BY_SIDE,
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
                                    _obj({"step": INT, "text": STR, "rules": _arr(CITED)})
                                ),
                                "rule_links": _arr(CITED),
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
                "groups": _arr(
                    {
                        "type": "object",
                        "description": "Hits grouped by rule; each hit names its edition and the "
                        "range of editions that print its text (editions: first, last, count).",
                    }
                ),
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
        **_play_schemas(),
    }


def _play_schemas() -> dict[str, Any]:
    """The playground's request and answers (``/api/run``, ``/{locale}/play.json``)."""
    event = _obj(
        {
            "seq": INT,
            "where": STR,
            "text": STR,
            "rules": _arr(_obj({"number": STR, "url": _opt(STR)}, ("number", "url"))),
        },
        ("seq", "where", "text", "rules"),
    )
    run = _obj(
        {
            "outcome": {
                "enum": ["done", "cpu", "memory", "timeout", "ended", "error"],
                "description": "done: the run ended by itself; cpu, memory, timeout, ended: "
                "stopped by a limit; error: the engine failed.",
            },
            "passed": {**BOOL, "description": "Parsed, set up and met every ? expectation."},
            "started": BOOL,
            "message": STR,
            "message_local": STR,
            "problems": _arr(_obj({"line": INT, "message": STR}, ("line", "message"))),
            "events": _arr(event),
            "events_left_out": INT,
            "cpu_ms": _opt({"type": "number"}),
            "cpu_limit_ms": INT,
            "permalink": _opt(
                {
                    **STR,
                    "description": "The playground with this scenario "
                    "(null: too long for an address).",
                }
            ),
        },
        ("outcome", "passed", "problems", "events", "permalink"),
    )
    return {
        "RunRequest": _obj(
            {
                "scenario": {**STR, "maxLength": 20_000},
                "locale": {**STR, "enum": ["en", "fr", "ja"]},
            },
            ("scenario",),
        ),
        "Run": {"allOf": [_obj({"ok": {"const": True}, "locale": STR}, ("ok", "locale")), run]},
        "Play": _obj(
            {
                "scenario": STR,
                "source": _opt({"type": "object"}),
                "result": _opt(run),
                "notice": _opt(STR),
                "run_url": STR,
            },
            ("scenario", "result", "run_url"),
        ),
    }


# ---- the document ------------------------------------------------------------------------------
