"""A rule's history: its text in every edition of each language, and its old numbers."""

from __future__ import annotations

from typing import Any

from kb.model import LANGS, KnowledgeBase, Rule
from kb.web.i18n import LANGUAGE_NAMES, format_day
from kb.web.pages.common import edition_label, rule_url
from kb.web.render import word_diff


def history(kb: KnowledgeBase, canonical: str, locale: str) -> list[dict[str, Any]]:
    """Per language: the rule in every edition, a word diff where its text changed."""
    out = []
    # The reader's language first, then English (the full history), then the others.
    for lang in sorted(LANGS, key=lambda code: (code != locale, code != "en")):
        entries = kb.history(canonical, lang)
        if not entries:
            continue
        rows = []
        prev: Rule | None = None
        for entry in entries:
            rule = kb.rule(entry["edition"], entry["number"])
            if rule is None:
                continue
            row = {
                **entry,
                "date_display": format_day(entry["date"], locale),
                "label": (
                    edition_label(kb.editions[entry["edition"]], locale)
                    if entry["edition"] in kb.editions
                    else entry["edition"]
                ),
                "url": rule_url(locale, entry["number"], entry["edition"]),
                "renumbered_from": None,
                "diff": None,
            }
            if prev is not None:
                if prev.number != rule.number:
                    row["renumbered_from"] = prev.number
                old = f"{prev.title or ''} {prev.text}".strip()
                new = f"{rule.title or ''} {rule.text}".strip()
                if old != new:
                    row["diff"] = word_diff(old, new)
            rows.append(row)
            prev = rule
        out.append({"lang": lang, "language": LANGUAGE_NAMES[lang], "entries": rows})
    return out


def old_numbers(kb: KnowledgeBase, canonical: str, locale: str) -> list[dict[str, Any]]:
    """Numbers the rule had before (``116.3b until 2019-06-14``), from the English editions."""
    numbers = kb.concordance.get(canonical, {})
    spans: dict[str, dict[str, Any]] = {}
    for ed in kb.editions_of("en"):
        number = numbers.get(ed.id)
        if number is None or number == canonical:
            continue
        span = spans.setdefault(number, {"number": number, "from": ed.date, "until": ed.date})
        span["until"] = ed.date or span["until"]
    for span in spans.values():
        span["from_display"] = format_day(span["from"], locale)
        span["until_display"] = format_day(span["until"], locale)
    return list(spans.values())
