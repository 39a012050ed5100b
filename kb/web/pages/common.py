"""What several page families share: rule URLs and anchors, edition labels, previews and the
errors that name the nearest rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.base.cachemap import keep, shared_cache
from kb.knowledge import lookup
from kb.knowledge.model import Edition, KnowledgeBase, Rule, parsed_number
from kb.knowledge.printed import (
    MAX_MEANINGS,
    other_meanings,
    printed_facts,
    printed_rule,
)
from kb.knowledge.serialise import edition_json
from kb.text.rulenum import RuleNumber, try_parse
from kb.web.i18n import LANGUAGE_NAMES, format_day, format_month
from kb.web.i18n import text as _
from kb.web.pages.base import PageError
from kb.web.urls import build, scope, url_for

PREVIEW_CHARS = 280


def rule_url(locale: str, number: str, edition: str | None = None) -> str:
    """The page of a rule: current (by canonical number) or pinned to an edition."""
    if edition:
        return build("pages.rule_pinned", _PINNED, (locale, edition, number))
    return build("pages.rule", _CURRENT, (locale, number))


_PINNED, _CURRENT = ("locale", "edition", "number"), ("locale", "number")


def glossary_url(kb: KnowledgeBase, locale: str, key: str, lang: str = "en") -> str:
    """The page of a glossary entry (by key, of a ``lang`` glossary): ``?lang=`` added only where
    the key names another entry for a reader of ``locale`` (French ``pile`` is the stack).

    Kept per loaded knowledge base, app and script root: a rule page links a dozen terms, most
    of them on many pages, and their keys hold spaces, which only Flask's URL builder quotes."""
    where = scope()
    cache = shared_cache(kb, "_glossary_urls") if where is not None else None
    if cache is None:
        return _glossary_url(kb, locale, key, lang)
    wanted = (*where, locale, key, lang)  # type: ignore[misc]
    found = cache.get(wanted)
    if found is None:
        found = _glossary_url(kb, locale, key, lang)
        keep(cache, wanted, found, GLOSSARY_URLS)
    return found  # type: ignore[no-any-return]


#: Glossary URLs kept per knowledge base (see :func:`glossary_url`).
GLOSSARY_URLS = 4096


def _glossary_url(kb: KnowledgeBase, locale: str, key: str, lang: str) -> str:
    if lang != locale and key in lookup.glossary_shadowed(kb, locale):
        return url_for("pages.glossary_entry", locale=locale, key=key, lang=lang)
    return url_for("pages.glossary_entry", locale=locale, key=key)


def anchor(number: str) -> str:
    """The HTML id of a rule (``R1173a``): dotted numbers never serve as ids."""
    num = parsed_number(number)
    return num.anchor if num else "R" + "".join(c for c in number if c.isalnum())


def short(text: str, limit: int = PREVIEW_CHARS) -> str:
    """A text cut at a word boundary for previews."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "…"


def edition_label(ed: Edition, locale: str) -> str:
    """How a reader names an edition: "Edition of 14 November 2025", or for a quoted page
    without a date its title, where it comes from and the numbering it follows."""
    day = format_day(ed.date, locale)
    if day and (ed.kind == "full" or ed.version or not ed.title):
        return _("Edition of %(date)s", date=day).local(locale)
    wiki = any("wiki" in src.rsplit("/", 1)[-1].lower() for src in ed.sources)
    if day:
        if wiki:
            return _("“%(title)s” (wiki) of %(date)s", title=ed.title, date=day).local(locale)
        return _("“%(title)s” of %(date)s", title=ed.title, date=day).local(locale)
    start, _sep, end = (ed.numbering or "").partition("..")
    if start and end and format_month(start, locale) and format_month(end, locale):
        span = {"start": format_month(start, locale), "end": format_month(end, locale)}
        if wiki:
            return _(
                "“%(title)s” (wiki), numbering of %(start)s to %(end)s", title=ed.title, **span
            ).local(locale)
        return _("“%(title)s”, numbering of %(start)s to %(end)s", title=ed.title, **span).local(
            locale
        )
    if ed.title:
        return _("“%(title)s” (wiki)", title=ed.title).local(locale) if wiki else f"“{ed.title}”"
    return ed.id


def edition_info(ed: Edition | None, locale: str) -> dict[str, Any] | None:
    """An edition as ``kb editions --json`` shows it (:func:`kb.knowledge.serialise.edition_json`), with what
    a page shows of it under ``page``: its label, title, language name and date for readers."""
    if ed is None:
        return None
    return {
        **edition_json(ed),
        "page": {
            "label": edition_label(ed, locale),
            "title": ed.title,
            "language": LANGUAGE_NAMES.get(ed.lang, ed.lang),
            "date_display": format_day(ed.date, locale),
        },
    }


def current_for_old(kb: KnowledgeBase, spec: str, lang: str, number: str) -> tuple[Edition, Rule]:
    """:func:`kb.knowledge.lookup.old_rule` for a visitor: its edition and rule, or a :class:`PageError`
    that names the unknown edition (400) or the nearest rules of that edition (404)."""
    ed = lookup.rule_edition(kb, spec, lang, number)
    if ed is None:
        raise PageError(
            400, _("Unknown edition “%(edition)s”.", edition=spec[:40]), edition=spec[:40]
        )
    old = lookup.edition_rule(kb, ed, number)
    if old is None:
        raise not_found_rule(kb, lang, number, ed.id)
    return ed, old


@dataclass(frozen=True, slots=True)
class FoundRule:
    """What a typed rule number names (:func:`find_rule`): ``how`` it was found, the ``url`` of
    the page that shows it, and the rule itself where that is the number's own page.

    ``how``: ``"old"``, a number of the named edition (``rule``: that edition's rule, whose
    ``canonical`` is the current rule it became, None if deleted since); ``"current"``, a
    canonical number, and ``"deleted"``, a number no current rule has that the newest edition
    printing it gives a rule that was deleted since (``rule`` and ``fallback``: what
    :func:`kb.knowledge.lookup.lookup_rule` found; for ``"current"``, only when asked to read it);
    ``"renamed"``, an earlier number of a current rule (``via``: :func:`meanings_query`);
    ``"misprint"``, the rule that printed it (505.54)."""

    how: str
    url: str
    rule: Rule | None = None
    fallback: bool = False
    via: str = ""


def find_rule(
    kb: KnowledgeBase, locale: str, key: str, edition: str | None = None, *, read: bool = True
) -> FoundRule:
    """The rule a visitor's number (parsed: ``key``) names, for the rule page and permalinks:
    with ``edition``, that edition's rule (a misprinted number: the rule that printed it); else a
    canonical number, an old number's current rule, a deleted rule's number, a misprint, in that
    order. Else a :class:`PageError` naming the nearest rules (or an unknown edition).

    ``read=False``: a canonical number's rule is not read (``rule`` None), for an answer that
    only sends the visitor to its page (the read cost a permalink 0.2 ms, most of its CPU)."""
    if edition:
        ed, old = current_for_old(kb, edition, locale, key)
        if old.canonical:
            return FoundRule("old", rule_url(locale, old.canonical), old)
        return FoundRule("old", rule_url(locale, key, ed.id), old)
    current = lookup.canonical_for(kb, locale, key)
    if current is not None and current != key:
        # An old number (116.3b before July 2019) names the rule it became; its page names the
        # other rules the number had (?via=).
        url = rule_url(locale, current)
        return FoundRule("renamed", url, via=meanings_query(kb, locale, key))
    if current is not None and not read:
        return FoundRule("current", rule_url(locale, key))
    found = lookup.lookup_rule(kb, locale, key)
    if found is not None:
        rule, fallback = found
        if current is not None:
            return FoundRule("current", rule_url(locale, key), rule, fallback)
        return FoundRule("deleted", rule_url(locale, key, rule.edition), rule, fallback)
    misprint = printed_url(kb, locale, key, None)
    if misprint is None:
        raise not_found_rule(kb, locale, key, None)
    return FoundRule("misprint", misprint)


def printed_url(kb: KnowledgeBase, locale: str, number: str, edition: str | None) -> str | None:
    """The page of the rule an edition printed as ``number`` but keeps under another (505.54 of
    2010-06-18 is 505.5; without an edition, the newest that printed it so), else None."""
    for lang in dict.fromkeys((locale, "en")):
        found = printed_rule(kb, lang, number, edition)
        if found is not None:
            return rule_url(locale, found.number, found.edition)
    return None


def not_found_rule(kb: KnowledgeBase, locale: str, number: str, edition: str | None) -> PageError:
    """A 404 that names the nearest rules."""
    ed = lookup.resolve_edition(kb, edition, locale) if edition else lookup.toc_edition(kb, locale)
    near = lookup.nearest_rules(kb, ed.id, number) if ed else []
    pinned = edition if edition else None
    message = (
        _("No rule %(number)s in %(edition)s.", number=number, edition=ed.id)
        if ed
        else _("No rule %(number)s in this knowledge base.", number=number)
    )
    return PageError(
        404,
        message,
        number=number,
        suggestions=[
            {"number": n, "url": rule_url(locale, n, pinned) if pinned else rule_url(locale, n)}
            for n in near
        ],
    )


def parse_number(text: str) -> RuleNumber | None:
    """A rule number from a URL segment (any spelling), or None (parsed once per spelling, by
    :func:`kb.knowledge.model.parsed_number`: a page's number is parsed by its view and its card)."""
    if len(text) > 40:
        return None
    return parsed_number(text)


def numbering_notices(
    kb: KnowledgeBase, rule: Rule, locale: str, via: str | None = None
) -> list[dict[str, Any]]:
    """What a rule page says of the number its edition printed: a misprint kept under the
    number it stands for (505.54 of 2010-06-18 is 505.5), the second rule printed under one
    number (702.30d twice in 2009-09-04: the second is 702.30e), and on the first of those, the
    second; and, reached by an old number of the rule (``via``: /r/116.3b), the other rules that
    number named (the paying-life rule from 2009 to 2010). Each: ``text``, and the ``link``
    label and ``url`` of the other rule, if any."""
    out: list[dict[str, Any]] = []
    printed, second, others_kept = printed_facts(kb, rule)
    if second:
        text = _(
            "Printed as %(number)s in this edition, after another rule with that number: kept "
            "as %(kept)s. The first:",
            number=printed,
            kept=rule.number,
        )
        out.append(_notice(text, locale, printed, rule_url(locale, printed, rule.edition)))
    elif printed:
        text = _(
            "Printed as %(number)s in this edition (a misprint): kept as %(kept)s.",
            number=printed,
            kept=rule.number,
        )
        out.append(_notice(text, locale))
    for other in others_kept:
        text = _(
            "This edition printed %(number)s for another rule too, kept as:", number=rule.number
        )
        out.append(_notice(text, locale, other, rule_url(locale, other, rule.edition)))
    old, meanings = _old_meanings(kb, rule, via) if via else (None, [])
    for meaning in meanings[-MAX_MEANINGS:]:
        first, last = (kb.editions[e].date for e in (meaning.first, meaning.last))
        if first == last:
            text = _(
                "%(number)s, an earlier number of this rule, numbered another rule in the "
                "edition of %(date)s:",
                number=old.number,
                date=format_day(first, locale),
            )
        else:
            text = _(
                "%(number)s, an earlier number of this rule, numbered another rule from "
                "%(start)s to %(end)s:",
                number=old.number,
                start=format_day(first, locale),
                end=format_day(last, locale),
            )
        target = meaning.canonical
        url = rule_url(locale, target) if target else rule_url(locale, old.number, meaning.last)
        out.append(_notice(text, locale, target or old.number, url))
    return out


def _notice(
    text: Any, locale: str, link: str | None = None, url: str | None = None
) -> dict[str, Any]:
    """A notice of :func:`numbering_notices`: the message in the locale, and its link."""
    return {"text": text.local(locale), "link": link, "url": url}


def _old_meanings(kb: KnowledgeBase, rule: Rule, via: str) -> tuple[Rule | None, list[Any]]:
    """The rule an old number ``via`` of ``rule`` named and the other rules it named
    (:func:`kb.knowledge.printed.other_meanings`): in ``rule``'s language, else in the official (English)
    numbering, as a translation without complete editions (French) has no numbering history."""
    for lang in dict.fromkeys((rule.lang, "en")):
        old = _old_rule(kb, rule, via, lang)
        meanings = other_meanings(kb, old) if old else []
        if old is not None and meanings:
            return old, meanings
    return None, []


def _old_rule(kb: KnowledgeBase, rule: Rule, via: str, lang: str) -> Rule | None:
    """The newest rule of ``rule``'s lineage numbered ``via`` (an old number of it) in the
    complete editions of ``lang``, else None (and None when ``via`` is its number there now)."""
    num = try_parse(via)
    if num is None or not rule.canonical:
        return None
    numbers = kb.concordance.get(rule.canonical, {})
    full = kb.editions_of(lang, full_only=True)
    own = rule.number if lang == rule.lang else (numbers.get(full[-1].id) if full else None)
    if str(num) == own:
        return None
    for ed in reversed(full):
        if numbers.get(ed.id) == str(num):
            return kb.rule(ed.id, str(num))
    return None


def meanings_query(kb: KnowledgeBase, locale: str, number: str) -> str:
    """``?via=<number>`` when an old number named other rules in other editions (116.3b), for
    the redirect to the rule it names now: that page then names the others; else empty. Asked
    of the locale's language, then of English (a French text without complete editions has no
    numbering history of its own: its reader gets the English one, like :func:`_old_meanings`)."""
    for lang in dict.fromkeys((locale, "en")):
        found = kb.find(lang, number)
        if found is not None and other_meanings(kb, found):
            return f"?via={number}"
    return ""
