"""Glossary pages: every entry, and one entry with its references and equivalents."""

from __future__ import annotations

from flask import Response, redirect

from kb.lookup import find_glossary, glossary_edition, glossary_suggestions
from kb.model import LANGS, GlossaryEntry, KnowledgeBase, Ref
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, suffix, twin
from kb.web.pages.common import edition_info, rule_url
from kb.web.render import rule_html
from kb.web.resources import get_kb
from kb.web.urls import url_for


def glossary_index_page(kb: KnowledgeBase, locale: str) -> Page:
    """Every entry of the glossary, alphabetically."""
    ed = glossary_edition(kb, locale)
    entries = sorted(kb.glossary.get(ed.id, {}).values(), key=lambda e: e.key) if ed else []
    return Page(
        "pages/glossary_index.html",
        {
            "edition": edition_info(ed, locale),
            "entries": [
                {
                    "key": e.key,
                    "term": e.term,
                    "lang": e.lang,
                    "obsolete": e.obsolete,
                    "url": url_for("pages.glossary_entry", locale=locale, key=e.key),
                }
                for e in entries
            ],
        },
    )


def glossary_page(kb: KnowledgeBase, locale: str, entry: GlossaryEntry) -> Page:
    """One glossary entry, its references and the same concept in the other languages."""

    def href(ref: Ref) -> str:
        return rule_url(locale, ref.canonical or ref.number)

    names = {entry.term.lower(), *(a.lower() for a in entry.aliases)}
    equivalents = []
    for term in kb.terms:
        if names & {n.lower() for n in term.names(entry.lang)}:
            for lang in LANGS:
                if lang != entry.lang and term.names(lang):
                    equivalents.append({"lang": lang, "names": term.names(lang)})
            break
    return Page(
        "pages/glossary_entry.html",
        {
            "entry": {
                "key": entry.key,
                "term": entry.term,
                "lang": entry.lang,
                "definition": entry.definition,
                "html": rule_html(entry.definition, entry.refs, href),
                "aliases": entry.aliases,
                "obsolete": entry.obsolete,
                "see": [
                    {"term": s, "url": url_for("pages.glossary_entry", locale=locale, key=s)}
                    for s in entry.see
                ],
                "rules": [{"number": n, "url": rule_url(locale, n)} for n in entry.rule_refs],
            },
            "edition": edition_info(kb.editions.get(entry.edition), locale),
            "equivalents": equivalents,
        },
        alternates={
            loc: url_for("pages.glossary_entry", locale=loc, key=entry.key) for loc in LANGS
        },
    )


# ---- routes ---
@twin("/<locale:locale>/glossary/", "glossary_index")
def glossary_index(locale: str, fmt: str = "html") -> Page:
    """Every glossary entry."""
    return glossary_index_page(get_kb(), locale)


@twin("/<locale:locale>/glossary/<key>", "glossary_entry")
def glossary_entry(locale: str, key: str, fmt: str = "html") -> Page | Response:
    """One entry; an alias or another spelling redirects to the entry's own key."""
    kb = get_kb()
    entry = find_glossary(kb, locale, key) if len(key) <= 200 else None
    if entry is None:
        near = glossary_suggestions(kb, key, locale)
        raise PageError(
            404,
            _("No glossary entry “%(key)s”.", key=key[:60]),
            suggestions=[
                {"term": e.term, "url": url_for("pages.glossary_entry", locale=locale, key=e.key)}
                for e in near
            ],
        )
    if entry.key != key:
        target = url_for("pages.glossary_entry", locale=locale, key=entry.key)
        return redirect(suffix(target, fmt), 301)
    return glossary_page(kb, locale, entry)
