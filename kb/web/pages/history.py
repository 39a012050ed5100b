"""A rule's history, compact at archive scale: per language, one row per change (its word diff),
each followed by how long the text then stayed as it was; and the numbers it had before."""

from __future__ import annotations

from typing import Any

from kb.model import LANGS, KnowledgeBase
from kb.web.i18n import LANGUAGE_NAMES, format_day
from kb.web.pages.common import edition_label, rule_url
from kb.web.render import word_diff


def history(kb: KnowledgeBase, canonical: str, locale: str) -> list[dict[str, Any]]:
    """Per language (the reader's first, then English, then the others): ``entries``, the rule
    in every edition that has it (a word diff where its text changed), and ``rows``, the same
    folded for reading: each row an edition where the number or the text changed, with the run
    of editions after it that printed it unchanged (``unchanged`` count, ``until`` entry)."""
    out = []
    for lang in sorted(LANGS, key=lambda code: (code != locale, code != "en")):
        entries = kb.history_texts(canonical, lang)  # one lookup, not one per edition
        if not entries:
            continue
        rows: list[dict[str, Any]] = []
        folded: list[dict[str, Any]] = []
        prev: dict[str, Any] | None = None
        for entry in entries:
            ed = kb.editions.get(entry["edition"])
            text = f"{entry.get('title') or ''} {entry.get('text') or ''}".strip()
            row = {
                "edition": entry["edition"],
                "date": entry["date"],
                "number": entry["number"],
                "change": entry["change"],
                "date_display": format_day(entry["date"], locale),
                "label": edition_label(ed, locale) if ed else entry["edition"],
                "url": rule_url(locale, entry["number"], entry["edition"]),
                "renumbered_from": None,
                "diff": None,
            }
            changed = prev is None
            if prev is not None:
                if prev["number"] != entry["number"]:
                    row["renumbered_from"] = prev["number"]
                    changed = True
                if prev["text"] != text:
                    row["diff"] = word_diff(prev["text"], text)
                    changed = True
            rows.append(row)
            if changed or not folded:
                folded.append({"entry": row, "unchanged": 0, "until": None})
            else:
                folded[-1]["unchanged"] += 1
                folded[-1]["until"] = row
            prev = {"number": entry["number"], "text": text}
        out.append(
            {"lang": lang, "language": LANGUAGE_NAMES[lang], "entries": rows, "rows": folded}
        )
    return out


def old_numbers(kb: KnowledgeBase, canonical: str, locale: str) -> list[dict[str, Any]]:
    """Numbers the rule had before, each with the first and the last English edition that
    printed it (``116.3b`` from 2011-09-30 to 2019-06-14: the 2019-06-14 edition still has it)."""
    numbers = kb.concordance.get(canonical, {})
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
