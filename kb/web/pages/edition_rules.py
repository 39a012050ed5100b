"""An edition read whole: its contents (``/<locale>/editions/<edition>/rules/``) and all its
rules on one page (``…/rules/all``), for any edition, not only the newest.

``/<locale>/rules/`` shows the contents of the edition the locale reads today; an old edition's
contents (the numbering of 2019-06-14, where Timing and Priority is 116) link to that edition's
pinned rule pages (``/<locale>/<edition>/rules/<number>``), so every rule of it is reachable.
The one-page form prints every rule with its number inline and an ``R1173a`` anchor, for
printing and for the browser's find; the interface follows the locale, the rules keep their
language (marked with ``lang``).
"""

from __future__ import annotations

from typing import Any

from flask import Response, redirect

from kb.knowledge import lookup
from kb.knowledge.model import Edition, KnowledgeBase
from kb.text.rulenum import try_parse
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, suffix, twin
from kb.web.pages.common import anchor, edition_info, rule_url, short
from kb.web.resources import get_kb
from kb.web.urls import url_for

__all__ = ["contents_url", "edition_of"]


def contents_url(locale: str, edition: str) -> str:
    """The contents page of one edition."""
    return url_for("pages.edition_contents", locale=locale, edition=edition)


def edition_of(kb: KnowledgeBase, spec: str, locale: str) -> Edition:
    """The edition a URL names (id, date or version, in the locale's language, else English),
    or a 404 naming the editions there are."""
    ed = lookup.resolve_edition(kb, spec, locale) if spec and len(spec) <= 60 else None
    if ed is None or not kb.rules.get(ed.id):
        raise PageError(
            404,
            _("No edition “%(edition)s”.", edition=spec[:60]),
            edition=spec[:60],
            editions=[e.id for e in kb.editions.values() if kb.rules.get(e.id)],
        )
    return ed


def _contents(kb: KnowledgeBase, ed: Edition, locale: str) -> list[dict[str, Any]]:
    """The edition's sections and their rules (depth 0 and 1), each linked to its page there."""
    table = kb.rules.get(ed.id, {})
    sections: dict[int, dict[str, Any]] = {}
    for number in kb.ordered_numbers(ed.id):
        num = try_parse(number)
        if num is None or num.depth > 1:
            continue
        rule = table[number]
        sec = sections.setdefault(
            num.section,
            {"number": str(num.section), "title": "", "lang": ed.lang, "url": None, "rules": []},
        )
        title = rule.title or short(rule.text, 80)
        url = rule_url(locale, number, ed.id)
        if num.is_section:
            sec.update(title=title, url=url)
        else:
            sec["rules"].append({"number": number, "title": title, "lang": ed.lang, "url": url})
    return [sections[k] for k in sorted(sections)]


def _all_rules(kb: KnowledgeBase, ed: Edition, locale: str) -> list[dict[str, Any]]:
    """Every rule of the edition in order: number, depth, anchor, text and examples."""
    table = kb.rules.get(ed.id, {})
    out = []
    for number in kb.ordered_numbers(ed.id):
        rule = table[number]
        num = try_parse(number)
        out.append(
            {
                "number": number,
                "depth": num.depth if num is not None else 0,
                "kind": rule.kind,
                "anchor": anchor(number),
                "text": rule.text,
                "examples": list(rule.examples),
                "url": rule_url(locale, number, ed.id),
            }
        )
    return out


# ---- routes ---
@twin("/<locale:locale>/editions/<edition>/rules/", "edition_contents")
def edition_contents(locale: str, edition: str, fmt: str = "html") -> Page | Response:
    """The contents of one edition, each section and rule linked to its page in that edition."""
    kb = get_kb()
    ed = edition_of(kb, edition, locale)
    if ed.id != edition:
        return redirect(suffix(contents_url(locale, ed.id), fmt), 301)
    data = {
        "edition": edition_info(ed, locale),
        "toc": _contents(kb, ed, locale),
        "all_url": url_for("pages.edition_all", locale=locale, edition=ed.id),
    }
    return Page("pages/edition_contents.html", data)


@twin("/<locale:locale>/editions/<edition>/rules/all", "edition_all")
def edition_all(locale: str, edition: str, fmt: str = "html") -> Page | Response:
    """Every rule of one edition on one page, numbers inline, an anchor per rule."""
    kb = get_kb()
    ed = edition_of(kb, edition, locale)
    if ed.id != edition:
        target = url_for("pages.edition_all", locale=locale, edition=ed.id)
        return redirect(suffix(target, fmt), 301)
    data = {
        "edition": edition_info(ed, locale),
        "contents_url": contents_url(locale, ed.id),
        "rules": _all_rules(kb, ed, locale),
    }
    return Page("pages/edition_all.html", data)
