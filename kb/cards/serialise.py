"""A card as plain JSON data for one reader's language: what ``kb card --json``, the card page's
JSON twin and the page template share, so that the three say the same thing.

The Oracle text is English (the current wording); the printed name, type line and text in the
reader's language are added where the card file knows them (``printed``), never in its place,
since a printing may predate an Oracle update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kb.sources.card_model import Card

__all__ = ["WHY_ORDER", "card_json", "rules_by_why"]

#: The reasons a card uses a rule, in the order a page lists them.
WHY_ORDER = ("layout", "keyword", "action", "supertype", "type", "subtype", "ability word", "term")


def rules_by_why(uses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """The rules a card uses grouped by why (keyword, type, term…), each group in rule order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for number, why, label, face in uses:
        groups.setdefault(why, []).append({"number": number, "label": label, "face": face})
    order = {w: i for i, w in enumerate(WHY_ORDER)}
    return [
        {"why": why, "rules": rules}
        for why, rules in sorted(groups.items(), key=lambda g: order.get(g[0], len(order)))
    ]


def card_json(card: Card, uses: Sequence[Sequence[Any]], lang: str, slug: str) -> dict[str, Any]:
    """The card for a reader of ``lang``: Oracle faces, printed texts in ``lang`` where known,
    dated rulings (newest last, as the file gives them) and the rules it uses grouped by why."""
    faces = []
    for face in card.faces:
        printed = face.printed.get(lang) if lang != "en" else None
        faces.append(
            {
                "name": face.name,
                "mana_cost": face.mana_cost,
                "type_line": face.type_line,
                "text": face.text,
                "power": face.power,
                "toughness": face.toughness,
                "loyalty": face.loyalty,
                "defense": face.defense,
                "printed": (
                    {"name": printed.name, "type_line": printed.type_line, "text": printed.text}
                    if printed is not None
                    else None
                ),
            }
        )
    names = {code: card.printed_name(code) for code in ("en", "fr", "ja")}
    return {
        "name": card.name,
        "slug": slug,
        "lang": lang,
        "printed_name": names.get(lang),
        "names": {code: name for code, name in names.items() if name},
        "layout": card.layout,
        "mana_value": card.mana_value,
        "type_line": card.type_line,
        "keywords": list(card.keywords),
        "faces": faces,
        "rulings": [{"date": r.date, "text": r.text} for r in card.rulings],
        "rules": [{"number": n, "why": w, "label": label, "face": f} for n, w, label, f in uses],
        "rules_by_why": rules_by_why(uses),
    }
