"""The home page and the table of contents (``/<locale>/``, ``/<locale>/rules/``)."""

from __future__ import annotations

from typing import Any

from flask import Response, redirect, request

from kb.knowledge.lookup import lookup_rule, toc_edition
from kb.knowledge.model import LANGS, KnowledgeBase, Rule
from kb.text.rulenum import try_parse
from kb.web.pages.base import Page, suffix, twin
from kb.web.pages.common import edition_info, rule_url, short
from kb.web.resources import get_kb


def title_for(kb: KnowledgeBase, rule: Rule, locale: str) -> tuple[str, str]:
    """A rule's title in the locale's language where a translation has it: (title, lang)."""
    if rule.lang != locale and rule.canonical:
        mine = kb.current(rule.canonical, locale)
        if mine is not None and mine.title:
            return mine.title, mine.lang
    return rule.title or short(rule.text, 80), rule.lang


def toc(kb: KnowledgeBase, locale: str, with_rules: bool = True) -> list[dict[str, Any]]:
    """Sections 1-9 and their rules, from the locale's table-of-contents edition."""
    ed = toc_edition(kb, locale)
    if ed is None:
        return []
    if ed.kind != "full":
        return quoted_toc(kb, locale, with_rules)
    table = kb.rules.get(ed.id, {})
    sections: dict[int, dict[str, Any]] = {}
    for number in kb.ordered_numbers(ed.id):
        rule = table[number]
        num = try_parse(number)
        if num is None or num.depth > 1:
            continue
        sec = sections.setdefault(
            num.section,
            {"number": str(num.section), "title": "", "lang": ed.lang, "url": None, "rules": []},
        )
        title, lang = title_for(kb, rule, locale)
        url = rule_url(locale, rule.canonical or number) if rule.canonical else None
        if num.is_section:
            sec.update(title=title, lang=lang, url=url)
        elif with_rules:
            sec["rules"].append({"number": number, "title": title, "lang": lang, "url": url})
    return [sections[k] for k in sorted(sections)]


def quoted_toc(kb: KnowledgeBase, locale: str, with_rules: bool = True) -> list[dict[str, Any]]:
    """The contents of a knowledge base of quotes only (no full edition yet): the highest rules
    any text quotes, by section. A quote of 117.1-117.3d lists 117.1, 117.2 and 117.3 (their
    parent 117 is quoted nowhere); each links to its current page."""
    current = {c: num for c in kb.concordance if ":" not in c and (num := try_parse(c))}
    sections: dict[int, dict[str, Any]] = {}
    for canonical, num in sorted(current.items(), key=lambda item: item[1].sort_key()):
        if any(str(anc) in current for anc in num.ancestors() if not anc.is_section):
            continue
        found = lookup_rule(kb, locale, canonical)
        if found is None:
            continue
        title, lang = title_for(kb, found[0], locale)
        sec = sections.setdefault(
            num.section,
            {"number": str(num.section), "title": "", "lang": locale, "url": None, "rules": []},
        )
        if num.is_section:
            sec.update(title=title, lang=lang, url=rule_url(locale, canonical))
        elif with_rules:
            sec["rules"].append(
                {
                    "number": canonical,
                    "title": title,
                    "lang": lang,
                    "url": rule_url(locale, canonical),
                }
            )
    return [sections[k] for k in sorted(sections)]


def home_page(kb: KnowledgeBase, locale: str) -> Page:
    """Search box, the newest edition of each language and the table of contents."""
    newest = [edition_info(kb.newest(lang), locale) for lang in LANGS if kb.newest(lang)]
    ed = toc_edition(kb, locale)
    return Page(
        "pages/home.html",
        {
            "newest": newest,
            "toc_edition": edition_info(ed, locale),
            "toc": toc(kb, locale),
            "examples": len(kb.examples),
            "cards": card_count(kb),
        },
    )


def card_count(kb: KnowledgeBase) -> int:
    """How many cards the build has (0: a build without a card file; the home page then does
    not offer the card index)."""
    from kb.store.cards import CardStore

    store = CardStore.of(kb)
    return store.count if store is not None else 0


def rules_index_page(kb: KnowledgeBase, locale: str) -> Page:
    """Every section and rule of the table-of-contents edition (and the anchor mapper)."""
    ed = toc_edition(kb, locale)
    return Page(
        "pages/rules_index.html",
        {"toc_edition": edition_info(ed, locale), "toc": toc(kb, locale)},
    )


# ---- routes ---
@twin("/<locale:locale>/", "home")
def home(locale: str, fmt: str = "html") -> Page:
    """Search box, newest editions and the table of contents."""
    return home_page(get_kb(), locale)


@twin("/<locale:locale>/rules/", "rules_index")
def rules_index(locale: str, fmt: str = "html") -> Page | Response:
    """All sections and rules; ``?edition=`` leads to that edition's contents (an old edition
    is never answered silently with today's)."""
    spec = request.args.get("edition", "").strip()
    if spec:
        from kb.web.pages.edition_rules import contents_url, edition_of

        ed = edition_of(get_kb(), spec, locale)
        return redirect(suffix(contents_url(locale, ed.id), fmt), 302)
    return rules_index_page(get_kb(), locale)
