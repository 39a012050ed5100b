"""Glossary pages: every entry, and one entry with its references and equivalents."""

from __future__ import annotations

from flask import Response, redirect, request

from kb.knowledge.lookup import glossary_edition, glossary_match, glossary_suggestions
from kb.knowledge.model import LANGS, GlossaryEntry, KnowledgeBase, Ref
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, suffix, twin
from kb.web.pages.cards import card_href, card_terms
from kb.web.pages.common import edition_info, glossary_url, rule_url
from kb.web.render import rule_html
from kb.web.resources import get_kb


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
                    "url": glossary_url(kb, locale, e.key, e.lang),
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
                "html": rule_html(
                    entry.definition,
                    entry.refs,
                    href,
                    card_terms(kb, entry.edition, "glossary", entry.key),
                    lambda key: card_href(locale, key),
                ),
                "aliases": entry.aliases,
                "obsolete": entry.obsolete,
                "see": [
                    {"term": s, "url": glossary_url(kb, locale, s, entry.lang)} for s in entry.see
                ],
                "rules": [{"number": n, "url": rule_url(locale, n)} for n in entry.rule_refs],
            },
            "edition": edition_info(kb.editions.get(entry.edition), locale),
            "equivalents": equivalents,
        },
        alternates={loc: glossary_url(kb, loc, entry.key, entry.lang) for loc in LANGS},
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
    # ?lang= names the glossary's language where a word means another thing in the reader's
    # (the French index links the English "Pile" as /fr/glossary/pile?lang=en: "pile" is the stack).
    lang = request.args.get("lang", "")
    if lang and lang not in LANGS:
        raise PageError(400, _("Unknown language “%(lang)s”: use en, fr or ja.", lang=lang[:20]))
    # One lookup: an entry the key names, else a guess offered first among the suggestions.
    found = glossary_match(kb, key, lang or locale) if len(key) <= 200 else None
    entry = found.entry if found is not None and not found.guessed else None
    if entry is None:
        guess = found
        near = glossary_suggestions(kb, key, locale)
        if guess is not None:  # a concept the term base finds inside the words comes first
            near = [guess.entry, *(e for e in near if e.key != guess.entry.key)]
        raise PageError(
            404,
            _("No glossary entry “%(key)s”.", key=key[:60]),
            suggestions=[
                {"term": e.term, "url": glossary_url(kb, locale, e.key, e.lang)} for e in near
            ],
        )
    if entry.key != key:
        target = glossary_url(kb, locale, entry.key, entry.lang)
        return redirect(suffix(target, fmt), 301)
    return glossary_page(kb, locale, entry)
