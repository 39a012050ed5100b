"""A rule's history, compact at archive scale: per language, one row per change (its word diff),
each followed by how long the text then stayed as it was; and the numbers it had before."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kb.base.cachemap import shared_cache
from kb.history import diffs as stored_history
from kb.knowledge.model import LANGS, KnowledgeBase
from kb.web.i18n import LANGUAGE_NAMES, format_day
from kb.web.i18n import text as _
from kb.web.pages.common import edition_label
from kb.web.urls import maker

HistoryEntries = dict[str, list[stored_history.Entry]]


def edition_labels(kb: KnowledgeBase, locale: str) -> dict[str, tuple[str | None, str, str]]:
    """Per edition id: its date, the date as the locale writes it and its label (kept on the
    knowledge base object, which a rebuild replaces)."""
    cache = kb.__dict__.setdefault("_history_labels", {})
    found = cache.get(locale)
    if found is None:
        found = {
            ed.id: (ed.date, format_day(ed.date, locale), edition_label(ed, locale))
            for ed in kb.editions.values()
        }
        cache[locale] = found
    return found


def _next_full(kb: KnowledgeBase) -> dict[str, str]:
    """Per edition id: the next full edition of its language (kept on the knowledge base)."""
    cache = shared_cache(kb, "_next_full_edition")
    if cache:
        return cache
    found: dict[str, str] = {}
    for lang in {ed.lang for ed in kb.editions.values()}:
        after: str | None = None
        for ed in reversed(kb.editions_of(lang)):
            if after is not None:
                found[ed.id] = after
            if ed.kind == "full":
                after = ed.id
    if cache is not None:
        cache.update(found)
    return found


def history(
    kb: KnowledgeBase,
    lineage: str,
    locale: str,
    by_lang: HistoryEntries | None = None,
    *,
    full: bool = True,
) -> list[dict[str, Any]]:
    """Per language (the reader's first, then English, then the others): ``entries``, the rule
    in every edition that has it (a word diff where its text changed), and ``rows``, the same
    folded for reading: each row an edition where the number or the text changed (as the
    lineage classification says: not its typography), with the run of editions after it that
    printed it unchanged (``unchanged`` count, ``until`` entry); and ``deleted``, the full
    edition of the language that first left it out after its last one (with that last number
    and the comparison of the two), None when its newest edition has it. ``lineage``: the
    rule's canonical number, or the lineage of a rule that no longer exists.

    The entries and their word diffs come precomputed from the build (:mod:`kb.history.diffs`);
    ``by_lang``: those entries when the page read them already. ``full=False`` (what the HTML
    page shows): ``count``, the number of entries, instead of ``entries``, and only the entries
    the rows show are made (at archive scale, a tenth of them)."""
    if by_lang is None:
        by_lang = stored_history.entries(kb, lineage)
    labels = edition_labels(kb, locale)
    pinned_url = maker("pages.rule_pinned", "locale", "edition", "number")
    changes_url = maker("pages.changes", "locale", "span")
    next_full = _next_full(kb)

    def deleted(last: stored_history.Entry) -> dict[str, Any] | None:
        edition = next_full.get(last[0])
        if edition is None:
            return None
        date, date_display, label = labels.get(edition) or (None, "", edition)
        return {
            "edition": edition,
            "date": date,
            "date_display": date_display,
            "label": label,
            "number": last[1],
            "url": changes_url(locale, f"{last[0]}..{edition}"),
        }

    def entry(item: stored_history.Entry) -> dict[str, Any]:
        edition, number, change, renumbered_from, diff, _changed, examples = item
        date, date_display, label = labels.get(edition) or (None, "", edition)
        url = pinned_url(locale, edition, number)
        if examples is not None:  # the edit is in its examples
            heading = _("Examples").html(locale)
            diff = f'<span lang="{locale}">{heading}</span> — {examples}'
        return {
            "edition": edition,
            "date": date,
            "number": number,
            "change": change,
            "date_display": date_display,
            "label": label,
            "url": url,
            "renumbered_from": renumbered_from,
            "diff": None if diff is None else Markup(diff),
        }

    out = []
    for lang in sorted(LANGS, key=lambda code: (code != locale, code != "en")):
        found = by_lang.get(lang)
        if not found:
            continue
        if full:
            rows = [entry(item) for item in found]
            folded = _fold(found, rows)
            out.append(
                {
                    "lang": lang,
                    "language": LANGUAGE_NAMES[lang],
                    "entries": rows,
                    "rows": folded,
                    "deleted": deleted(found[-1]),
                }
            )
        else:
            folded = _fold(found, None)
            for row in folded:
                row["entry"] = entry(row["entry"])
                if row["until"] is not None:
                    row["until"] = entry(row["until"])
            out.append(
                {
                    "lang": lang,
                    "language": LANGUAGE_NAMES[lang],
                    "count": len(found),
                    "rows": folded,
                    "deleted": deleted(found[-1]),
                }
            )
    return out


def _fold(found: list[Any], rows: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The rows of a history: an entry where the number or the text changed, with how many
    entries after it are unchanged and the last of them (``rows``: the entries as made for the
    page, else the stored ones)."""
    if not found:
        return []
    shown = found if rows is None else rows
    # Where a row starts: the first entry, and each entry whose number or text changed.
    starts = [0, *(i for i in range(1, len(found)) if found[i][5])]
    ends = [*starts[1:], len(found)]
    return [
        {
            "entry": shown[start],
            "unchanged": end - start - 1,
            "until": shown[end - 1] if end - start > 1 else None,
        }
        for start, end in zip(starts, ends, strict=True)
    ]


def old_numbers(
    kb: KnowledgeBase, canonical: str, locale: str, by_lang: HistoryEntries | None = None
) -> list[dict[str, Any]]:
    """Numbers the rule had before its canonical (or, deleted since, its last) one, each with
    the first and the last English edition that printed it (``116.3b`` from 2011-09-30 to 2019-06-14: the 2019-06-14 edition still has it).

    ``by_lang``: the lineage's history entries when the page has them already (its English
    entries are its numbers in the English editions)."""
    if by_lang is None:
        numbers = kb.concordance.get(canonical, {})
    else:
        numbers = {entry[0]: entry[1] for entry in by_lang.get("en", ())}
    # a rule deleted since (lineage "<edition>:<number>"): the numbers before its last one
    canonical = canonical.rpartition(":")[2]
    if all(number == canonical for number in numbers.values()):
        return []  # most rules: never numbered otherwise (no need to walk every edition)
    spans: dict[str, dict[str, Any]] = {}
    for ed in kb.editions_of("en"):
        number = numbers.get(ed.id)
        if number is None or number == canonical:
            continue
        span = spans.setdefault(number, {"number": number, "from": ed.date, "until": ed.date})
        span["from"] = span["from"] or ed.date
        span["until"] = ed.date or span["until"]
    for span in spans.values():
        span["from_display"] = format_day(span["from"], locale)
        span["until_display"] = format_day(span["until"], locale)
    return list(spans.values())
