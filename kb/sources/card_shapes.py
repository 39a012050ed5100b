"""One card's parsed JSON, in either format, made a :class:`kb.sources.card_model.Card`, and checked.

:mod:`kb.sources.cards` streams a file and hands each card's JSON here: :func:`from_atomic` reads
an MTGJSON AtomicCards entry (``name: [face, …]``, printed French and Japanese texts from each
face's ``foreignData``), :func:`from_scryfall` a Scryfall Oracle Cards object (``card_faces`` for
several faces; no rulings nor translations in that file). Both raise :class:`Damaged` for JSON no
card has (a wrong shape, a missing name, a text that is not a string); :func:`check` then finds
damage in the strings (see its docstring).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kb.sources.card_model import Card, Face, Printed, Ruling

__all__ = [
    "MAX_NAME",
    "Damaged",
    "check",
    "from_atomic",
    "from_scryfall",
    "guess_name",
    "strings_of",
]

#: A name longer than this is damage, not a card (the longest real one is about 150 characters).
MAX_NAME = 300

# markup, not prose in angle brackets ("<spooky music>" is a real ruling): HTML element names only
_HTML = re.compile(
    r"<\s*/?\s*(?:a|abbr|b|br|div|em|font|h[1-6]|hr|i|img|li|ol|p|script|small|span|strong|"
    r"style|sub|sup|table|td|th|tr|u|ul|iframe)\b[^<>]*>|&(?:lt|gt|amp|nbsp|quot|#\d+);",
    re.IGNORECASE,
)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_FOREIGN = {"French": "fr", "Japanese": "ja"}
_SUPERTYPES = frozenset({"Basic", "Legendary", "Ongoing", "Snow", "World", "Elite", "Host"})


class Damaged(Exception):
    """One card's JSON cannot be made a card (the reader skips it and reports why)."""


class _NoText(Damaged):
    """A Scryfall face with no ``oracle_text`` key at all (Scryfall writes "" for no text)."""

    def __init__(self, face: str) -> None:
        super().__init__(f"face {face[:60]!r} has no 'oracle_text'")


def guess_name(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return value["name"]
    return None


def _str(obj: dict[str, Any], key: str, what: str, *, required: bool = False) -> str:
    if key not in obj:
        if required:
            raise Damaged(f"{what} has no {key!r}")
        return ""
    value = obj[key]
    if value is None:
        raise Damaged(f"{what}: {key!r} is null")
    if not isinstance(value, str):
        raise Damaged(f"{what}: {key!r} is {type(value).__name__}, not a string")
    return value


def _opt(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return None if value is None else str(value)


def _strings(obj: dict[str, Any], key: str, what: str) -> list[str]:
    value = obj.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Damaged(f"{what}: {key!r} is not a list of strings")
    return list(value)


def _number(obj: dict[str, Any], key: str) -> float:
    value = obj.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def from_atomic(key: Any, value: Any, path: str, index: int) -> Card:
    """A card from AtomicCards' ``name: [face, …]`` entry."""
    if not isinstance(value, list) or not value or not all(isinstance(f, dict) for f in value):
        raise Damaged("expected a non-empty list of face objects")
    faces_json = sorted(value, key=lambda f: str(f.get("side") or ""))
    first = faces_json[0]
    name = _str(first, "name", "face", required=True)
    if name != key:
        raise Damaged(f"key {str(key)[:60]!r} differs from the card's name {name[:60]!r}")
    faces = [_atomic_face(f, i) for i, f in enumerate(faces_json)]
    keywords: list[str] = []
    for f in faces_json:
        keywords.extend(k for k in _strings(f, "keywords", "face") if k not in keywords)
    rulings_json = first.get("rulings") or []
    if not isinstance(rulings_json, list):
        raise Damaged("'rulings' is not a list")
    rulings = [
        Ruling(_str(r, "date", "ruling"), _str(r, "text", "ruling"))
        for r in rulings_json
        if isinstance(r, dict)
    ]
    identifiers = first.get("identifiers") if isinstance(first.get("identifiers"), dict) else {}
    rank = first.get("edhrecRank")
    return Card(
        name=name,
        layout=_str(first, "layout", "card") or "normal",
        faces=faces,
        mana_value=_number(first, "manaValue"),
        keywords=keywords,
        rulings=rulings,
        oracle_id=_opt(identifiers or {}, "scryfallOracleId"),
        rank=int(rank) if isinstance(rank, int | float) else None,
        source=path,
        index=index,
    )


def _atomic_face(f: dict[str, Any], i: int) -> Face:
    what = f"face {i}"
    face = Face(
        name=_str(f, "faceName", what) or _str(f, "name", what, required=True),
        type_line=_str(f, "type", what, required=True),
        text=_str(f, "text", what),
        mana_cost=_str(f, "manaCost", what),
        mana_value=_number(f, "faceManaValue" if "faceManaValue" in f else "manaValue"),
        supertypes=_strings(f, "supertypes", what),
        types=_strings(f, "types", what),
        subtypes=_strings(f, "subtypes", what),
        power=_opt(f, "power"),
        toughness=_opt(f, "toughness"),
        loyalty=_opt(f, "loyalty"),
        defense=_opt(f, "defense"),
        side=_opt(f, "side"),
    )
    foreign = f.get("foreignData") or []
    if not isinstance(foreign, list):
        raise Damaged(f"{what}: 'foreignData' is not a list")
    for entry in foreign:
        lang = _FOREIGN.get(entry.get("language")) if isinstance(entry, dict) else None
        if lang is None or lang in face.printed:
            continue
        printed_name = _str(entry, "faceName", f"{what} {lang}") or _str(entry, "name", lang)
        if printed_name:
            face.printed[lang] = Printed(
                printed_name, _str(entry, "type", f"{what} {lang}"), _str(entry, "text", lang)
            )
    return face


def from_scryfall(_key: Any, value: Any, path: str, index: int) -> Card:
    """A card from one object of Scryfall's Oracle Cards array."""
    if not isinstance(value, dict):
        raise Damaged(f"expected a card object, found {type(value).__name__}")
    if value.get("object") != "card":
        raise Damaged(f"'object' is {value.get('object')!r}, not 'card'")
    name = _str(value, "name", "card", required=True)
    faces_json = value.get("card_faces")
    if faces_json is not None and (
        not isinstance(faces_json, list) or not all(isinstance(f, dict) for f in faces_json)
    ):
        raise Damaged("'card_faces' is not a list of face objects")
    sides = "abcdefgh"
    if faces_json:
        faces = [
            _scryfall_face(f, value, f"face {i}", sides[i] if i < len(sides) else None)
            for i, f in enumerate(faces_json)
        ]
    else:
        faces = [_scryfall_face(value, value, "card", None)]
    rank = value.get("edhrec_rank")
    return Card(
        name=name,
        layout=_str(value, "layout", "card") or "normal",
        faces=faces,
        mana_value=_number(value, "cmc"),
        keywords=_strings(value, "keywords", "card"),
        rulings=[],  # Scryfall publishes rulings in a separate bulk file
        oracle_id=_opt(value, "oracle_id"),
        rank=int(rank) if isinstance(rank, int | float) else None,
        source=path,
        index=index,
    )


def _scryfall_face(f: dict[str, Any], card: dict[str, Any], what: str, side: str | None) -> Face:
    if "oracle_text" not in f:
        raise _NoText(_str(f, "name", what, required=True))
    type_line = _str(f, "type_line", what)
    supertypes, types, subtypes = _split_type_line(type_line)
    return Face(
        name=_str(f, "name", what, required=True),
        type_line=type_line,
        text=_str(f, "oracle_text", what),
        mana_cost=_str(f, "mana_cost", what),
        mana_value=_number(f, "cmc") if "cmc" in f else _number(card, "cmc"),
        supertypes=supertypes,
        types=types,
        subtypes=subtypes,
        power=_opt(f, "power"),
        toughness=_opt(f, "toughness"),
        loyalty=_opt(f, "loyalty"),
        defense=_opt(f, "defense"),
        side=side,
    )


def _split_type_line(type_line: str) -> tuple[list[str], list[str], list[str]]:
    """``Legendary Creature — Elf Druid`` -> supertypes, card types, subtypes."""
    left, _, right = type_line.partition("—")
    words = left.split()
    supers = [w for w in words if w in _SUPERTYPES]
    types = [w for w in words if w not in _SUPERTYPES]
    return supers, types, right.split()


def strings_of(card: Card) -> Iterator[tuple[str, str]]:
    yield "name", card.name
    for face in card.faces:
        yield f"{face.name[:40]!r} name", face.name
        yield f"{face.name[:40]!r} type line", face.type_line
        yield f"{face.name[:40]!r} text", face.text
        for lang, printed in face.printed.items():
            yield f"{face.name[:40]!r} {lang} name", printed.name
            yield f"{face.name[:40]!r} {lang} text", printed.text
            yield f"{face.name[:40]!r} {lang} type line", printed.type_line
    for ruling in card.rulings:
        yield f"ruling of {ruling.date}", ruling.text


def _fault(text: str) -> str | None:
    if not text.isascii() and _SURROGATE.search(text):
        return "a lone surrogate"
    tag = _HTML.search(text) if "<" in text or "&" in text else None
    return f"HTML ({tag[0][:40]!r})" if tag else None


def _oracle_strings(card: Card) -> Iterator[tuple[str, str]]:
    yield "name", card.name
    for face in card.faces:
        label = repr(face.name[:40])
        yield f"{label} name", face.name
        yield f"{label} type line", face.type_line
        yield f"{label} text", face.text


def check(card: Card) -> list[str]:
    """Damage no real card has: an overlong name, HTML markup, lone surrogates.

    In the Oracle name, type line or text it skips the card (raises Damaged). In a printed
    translation it leaves out that part (the whole translation of the face if it is the name),
    in a ruling that ruling; those are returned as warnings, as the card is still right.
    """
    if not card.name.strip():
        raise Damaged("empty name")
    longest = max(len(card.name), *(len(face.name) for face in card.faces))
    if longest > MAX_NAME:
        raise Damaged(f"a name of {longest} characters (more than {MAX_NAME})")
    for what, text in _oracle_strings(card):
        fault = _fault(text)
        if fault:
            raise Damaged(f"{what} holds {fault}")
    warnings: list[str] = []
    for face in card.faces:
        for lang, printed in list(face.printed.items()):
            for part in ("name", "type_line", "text"):
                fault = _fault(getattr(printed, part))
                if not fault:
                    continue
                what = f"{face.name[:40]!r} {lang} {part.replace('_', ' ')}"
                if part == "name":
                    del face.printed[lang]
                    warnings.append(f"{what} holds {fault}; the face's {lang} texts left out")
                    break
                setattr(printed, part, "")
                warnings.append(f"{what} holds {fault}; left out")
    kept = []
    for ruling in card.rulings:
        fault = _fault(ruling.text)
        if fault:
            warnings.append(f"ruling of {ruling.date} holds {fault}; left out")
        else:
            kept.append(ruling)
    card.rulings = kept
    return warnings
