"""Reading side by side: a section, or a rule with its subrules, in two or three columns
(English, French, Japanese), one row per rule of the English edition and in each other column
the same rule of that language, found through the concordance (its lineage's newest text there,
:meth:`~kb.knowledge.model.KnowledgeBase.counterparts`); a rule without one is marked "not
translated". ``/<locale>/compare/<number>?langs=en,ja`` and its ``.json`` twin."""

from __future__ import annotations

from typing import Any

from flask import Response, redirect, request

from kb.knowledge import lookup
from kb.knowledge.model import LANGS, KnowledgeBase, Rule, parsed_number
from kb.web.i18n import LANGUAGE_NAMES
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, suffix, twin
from kb.web.pages.common import anchor, edition_info, not_found_rule, parse_number, rule_url
from kb.web.render import rule_html
from kb.web.resources import get_kb
from kb.web.urls import url_for

#: Rows shown at most (a long rule's subtree; a section shows its rules only).
MAX_ROWS = 400
#: The columns when ``langs`` is not given.
DEFAULT_LANGS = ("en", "fr", "ja")


def parse_langs(raw: str | None) -> tuple[str, ...]:
    """The columns a visitor asked for (``en,ja``): two or three different languages of
    :data:`LANGS`, in the order given; else a 400 that says what is allowed."""
    if raw is None or not raw.strip():
        return DEFAULT_LANGS
    langs = tuple(part.strip().lower() for part in raw.split(","))
    if len(set(langs)) != len(langs) or not 2 <= len(langs) <= 3 or not set(langs) <= set(LANGS):
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        raise PageError(
            400,
            _(
                "langs must name two or three different languages of en, fr and ja "
                "(got “%(langs)s”).",
                langs=shown,
            ),
            langs=shown,
            choices=list(LANGS),
        )
    return langs


def compare_url(locale: str, number: str, langs: tuple[str, ...] | None = None) -> str:
    """The side-by-side page of a canonical rule (``langs``: its columns, default all)."""
    url = url_for("pages.compare", locale=locale, number=number)
    return f"{url}?langs={','.join(langs)}" if langs else url


def _rows(kb: KnowledgeBase, root: Rule) -> tuple[list[Rule], bool]:
    """The English rules shown, in document order: a section and its rules, or a rule and its
    whole subtree; at most :data:`MAX_ROWS` (True: some were left out)."""
    if root.kind == "section":
        rules = [root, *(r for r in (kb.rule(root.edition, n) for n in root.children) if r)]
    else:
        rules = kb.subtree(root)
    return rules[:MAX_ROWS], len(rules) > MAX_ROWS


def _cell(kb: KnowledgeBase, rule: Rule | None, lang: str, locale: str) -> dict[str, Any]:
    """One column of a row: the rule of that language, or a "not translated" mark."""
    if rule is None:
        return {"lang": lang, "missing": True}

    def href(ref: Any) -> str | None:
        return rule_url(locale, ref.canonical) if ref.canonical else None

    return {
        "lang": lang,
        "missing": False,
        "number": rule.number,
        "title": rule.title,
        "text": rule.text,
        "html": rule_html(rule.text, rule.refs, href) if rule.text != rule.title else "",
        "examples": [rule_html(x, refs, href) for x, refs in _examples(rule)],
        "edition": rule.edition,
        "url": rule_url(locale, rule.number, rule.edition)
        if not rule.canonical
        else rule_url(lang, rule.canonical),
    }


def _examples(rule: Rule) -> list[tuple[str, list[Any]]]:
    refs = rule.example_refs
    return [(x, refs[i] if i < len(refs) else []) for i, x in enumerate(rule.examples)]


def side_by_side(kb: KnowledgeBase, locale: str, root: Rule, langs: tuple[str, ...]) -> Page:
    """The page of an English rule (or section) read beside its counterparts in ``langs``."""
    english, truncated = _rows(kb, root)
    depth0 = parsed_number(root.number).depth if parsed_number(root.number) else 0
    editions: dict[str, str] = {"en": root.edition}
    rows = []
    for rule in english:
        found = {"en": rule, **kb.counterparts(rule)}
        cells = []
        for lang in langs:
            other = found.get(lang)
            if other is not None:
                editions.setdefault(lang, other.edition)
            cells.append(_cell(kb, other, lang, locale))
        num = parsed_number(rule.number)
        rows.append(
            {
                "number": rule.number,
                "canonical": rule.canonical,
                "anchor": anchor(rule.number),
                "depth": (num.depth if num else 0) - depth0,
                "rule_url": rule_url(locale, rule.canonical or rule.number),
                "compare_url": compare_url(locale, rule.canonical, langs)
                if rule.canonical and rule is not root
                else None,
                "cells": cells,
            }
        )
    columns = []
    for lang in langs:
        ed = kb.editions.get(editions[lang]) if lang in editions else None
        info = edition_info(ed, locale)
        columns.append(
            {
                "lang": lang,
                "language": LANGUAGE_NAMES[lang],
                "edition": info,
                "translated": sum(1 for r in rows if not r["cells"][len(columns)]["missing"]),
            }
        )
    canonical = root.canonical or root.number
    query = request.query_string.decode("latin-1")
    tail = f"?{query}" if query else ""
    data = {
        "number": canonical,
        "title": root.title,
        # The heading in the reader's language where the rule is translated.
        "title_local": (kb.counterparts(root).get(locale) or root).title
        if locale != "en"
        else root.title,
        "kind": root.kind,
        "langs": list(langs),
        "columns": columns,
        "rows": rows,
        "truncated": truncated,
        "rule_url": rule_url(locale, canonical),
        "choices": [
            {"langs": list(c), "url": compare_url(locale, canonical, c), "current": c == langs}
            for c in (("en", "fr"), ("en", "ja"), ("en", "fr", "ja"))
        ],
    }
    alternates = {
        loc: url_for("pages.compare", locale=loc, number=canonical) + tail for loc in LANGS
    }
    return Page("pages/sidebyside.html", data, alternates=alternates)


@twin("/<locale:locale>/compare/<number>", "compare")
def compare(locale: str, number: str, fmt: str = "html") -> Page | Response:
    """A rule or section side by side in two or three languages (``?langs=en,ja``)."""
    kb = get_kb()
    langs = parse_langs(request.args.get("langs"))
    num = parse_number(number)
    if num is None:
        shown = number if len(number) <= 40 else number[:40] + "…"
        raise PageError(
            404,
            _("“%(text)s” is not a rule number (try 117, 117.3 or 117.3a).", text=shown),
            number=shown,
            suggestions=[],
        )
    key = str(num)
    canonical = lookup.canonical_for(kb, "en", key)
    root = kb.current(canonical, "en") if canonical else None
    if root is None:
        raise not_found_rule(kb, locale, key, None)
    if canonical != number:  # another spelling or an old number: the current rule's page
        query = request.query_string.decode("latin-1")
        target = url_for("pages.compare", locale=locale, number=canonical)
        return redirect(suffix(target, fmt) + (f"?{query}" if query else ""), 301)
    return side_by_side(kb, locale, root, langs)
