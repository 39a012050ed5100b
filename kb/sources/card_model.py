"""Cards as pure data: a card, its faces, its dated rulings and its printed French/Japanese texts.

A reader (:mod:`kb.sources.cards`) fills these from MTGJSON AtomicCards or Scryfall's Oracle Cards
file; :mod:`kb.cards.rules_used` links them to rules and :mod:`kb.cards.names` resolves names to
them. Nothing here reads a file: one shape whatever the source, so the later phases (build, store,
pages, search) see a card the same way.

Oracle texts are the current wording; the printed French and Japanese names, type lines and texts
come from a printing and may predate Oracle updates, so they are kept apart (:class:`Printed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Languages of the printed texts kept besides English Oracle text.
PRINTED_LANGS = ("fr", "ja")


@dataclass(slots=True)
class Printed:
    """One face as printed in one language (may be older than the Oracle wording)."""

    name: str
    type_line: str = ""
    text: str = ""


@dataclass(slots=True)
class Ruling:
    """A dated ruling (``2021-06-18``) about the card."""

    date: str
    text: str


@dataclass(slots=True)
class Face:
    """One face of a card (the card itself for a single-faced card).

    ``mana_value`` is the face's own where the source gives one (a split half), else the card's.
    Power, toughness, loyalty and defense are strings as printed (``*``, ``1+*``); None if absent.
    """

    name: str
    type_line: str
    text: str = ""
    mana_cost: str = ""
    mana_value: float = 0.0
    supertypes: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    subtypes: list[str] = field(default_factory=list)
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None
    defense: str | None = None
    side: str | None = None  # "a", "b", … (MTGJSON); None for a single face
    printed: dict[str, Printed] = field(default_factory=dict)  # "fr"/"ja" -> as printed


@dataclass(slots=True)
class Card:
    """A card: its Oracle name (``Fire // Ice`` for several faces), layout and every face.

    ``layout`` is the source's layout name (``normal``, ``split``, ``adventure``, ``transform``,
    ``modal_dfc``, ``meld``, ``flip``, ``leveler``, …). ``keywords`` are the keyword abilities and
    actions the source lists for the card (all faces). ``rank`` orders cards by how often they
    are played (EDHREC rank, lower is more frequent; None if unknown), for candidate lists.
    """

    name: str
    layout: str
    faces: list[Face]
    mana_value: float = 0.0
    keywords: list[str] = field(default_factory=list)
    rulings: list[Ruling] = field(default_factory=list)
    oracle_id: str | None = None
    rank: int | None = None
    source: str = ""
    index: int = 0  # position in the source file (0-based), for messages

    def printed_name(self, lang: str) -> str | None:
        """The card's printed name in ``lang`` (faces joined by `` // ``), or None if unknown."""
        if lang == "en":
            return self.name
        names = [f.printed[lang].name for f in self.faces if lang in f.printed]
        if not names:
            return None
        # MTGJSON gives each face the whole printed name too; keep distinct face names in order
        unique = list(dict.fromkeys(names))
        return " // ".join(unique)

    def names(self, lang: str) -> list[str]:
        """Every name the card goes by in ``lang``: the whole name, then each face's name."""
        out: list[str] = []
        whole = self.printed_name(lang)
        if whole:
            out.append(whole)
        for face in self.faces:
            name = face.name if lang == "en" else (face.printed.get(lang) or Printed("")).name
            if name and name not in out:
                out.append(name)
        return out

    @property
    def text(self) -> str:
        """The Oracle text of every face, faces separated by a blank line."""
        return "\n\n".join(f.text for f in self.faces if f.text)

    @property
    def type_line(self) -> str:
        """The type lines of every face joined by `` // ``."""
        return " // ".join(f.type_line for f in self.faces)

    def to_json(self) -> dict[str, Any]:
        """The card as plain JSON data (for a store or a cache); :meth:`from_json` reverses it.

        Written out rather than :func:`dataclasses.asdict`, which deep-copies every value: a
        tenth of the time, over the 24,000 cards a build stores."""
        return {
            "name": self.name,
            "layout": self.layout,
            "faces": [_face_json(f) for f in self.faces],
            "mana_value": self.mana_value,
            "keywords": list(self.keywords),
            "rulings": [{"date": r.date, "text": r.text} for r in self.rulings],
            "oracle_id": self.oracle_id,
            "rank": self.rank,
            "source": self.source,
            "index": self.index,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Card:
        """A card from :meth:`to_json`'s data."""
        faces = [
            Face(
                **{k: v for k, v in face.items() if k != "printed"},
                printed={lang: Printed(**p) for lang, p in face.get("printed", {}).items()},
            )
            for face in data["faces"]
        ]
        rulings = [Ruling(**r) for r in data.get("rulings", [])]
        rest = {k: v for k, v in data.items() if k not in ("faces", "rulings")}
        return cls(faces=faces, rulings=rulings, **rest)


def _face_json(face: Face) -> dict[str, Any]:
    """A face as :func:`dataclasses.asdict` gives it (the same keys, in field order)."""
    return {
        "name": face.name,
        "type_line": face.type_line,
        "text": face.text,
        "mana_cost": face.mana_cost,
        "mana_value": face.mana_value,
        "supertypes": list(face.supertypes),
        "types": list(face.types),
        "subtypes": list(face.subtypes),
        "power": face.power,
        "toughness": face.toughness,
        "loyalty": face.loyalty,
        "defense": face.defense,
        "side": face.side,
        "printed": {
            lang: {"name": p.name, "type_line": p.type_line, "text": p.text}
            for lang, p in face.printed.items()
        },
    }
