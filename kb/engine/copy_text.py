"""The card language of copy abilities (707.5, 707.9): "you may have this creature enter as a
copy of any creature on the battlefield[, except …]".

:func:`parse_copy` reads the ability into a :class:`CopySpec`; :class:`CopyValue` is what a copy
effect gives in layer 1 (the copiable values, 707.2). :mod:`kb.engine.copying` gives them
meaning in the game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kb.engine.layer_text import LayerTextError, pt_value


def _a(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


@dataclass(frozen=True, slots=True)
class CopySpec:
    """ "You may have this creature enter as a copy of any creature on the battlefield[, except
    …]" (707.5, 614.1c): what it may copy and the exceptions of 707.9 (a set power and
    toughness, keywords it gains, a card type it has in addition to its other types, not
    legendary)."""

    text: str
    kind: str  # creature | artifact | enchantment | land | artifact or creature | permanent
    pt: tuple[int, int] | None = None  # "except it's 7/7" (707.9b)
    keywords: frozenset[str] = frozenset()  # "except it has flying" (707.9a)
    add_type: str = ""  # "except it's an artifact in addition to its other types"
    not_legendary: bool = False  # "except it isn't legendary"

    def exceptions(self) -> str:
        """The exceptions in players' words (empty without any)."""
        out = []
        if self.pt is not None:
            out.append(f"it's {self.pt[0]}/{self.pt[1]}")
        if self.keywords:
            out.append("it has " + " and ".join(sorted(self.keywords)))
        if self.add_type:
            out.append(f"it's {_a(self.add_type)} {self.add_type} in addition to its other types")
        if self.not_legendary:
            out.append("it isn't legendary")
        return ", ".join(out)


@dataclass(frozen=True, slots=True)
class CopyValue:
    """The value of a copy effect in layer 1: the copiable values it gives (707.2), taken once
    as the copy effect began (707.2b), with its exceptions already part of them (707.9b)."""

    of: str  # the copied object's name, for the trace
    card: Any  # the copiable values, as a CardDef
    exceptions: str = ""

    def says(self) -> str:
        """What is copied, for the trace."""
        what = (
            "its name, mana cost, color, types, rules text and power and toughness as printed "
            "or as copied (707.2); not its counters, status, or other effects on it"
        )
        return what + (f"; except {self.exceptions} (707.9)" if self.exceptions else "")


_COPY = re.compile(
    r"^you may have this (?:creature|artifact|enchantment|land|permanent) enter(?: the "
    r"battlefield)? as a copy of any ([a-z ]+?) on the battlefield(?:, except (.+))?$"
)
_COPY_KINDS = ("creature", "artifact", "enchantment", "land", "artifact or creature", "permanent")


def parse_copy(text: str) -> CopySpec | None:
    """707.5, 614.1c: "you may have this creature enter as a copy of any creature on the
    battlefield" (Clone), with the exceptions of 707.9: ", except it's 7/7", ", except it has
    flying", ", except it's an artifact in addition to its other types", ", except it isn't
    legendary" (several joined by "and"). None for another text; an unknown kind or exception
    is an error naming it."""
    low = " ".join(text.lower().replace("’", "'").split()).rstrip(".")
    m = _COPY.match(low)
    if not m:
        if " as a copy of " in low or " a copy of " in low:
            raise LayerTextError(
                f"cannot read the copy effect {low!r} (known: 'you may have this creature enter "
                "as a copy of any creature on the battlefield', optionally ', except …'; a "
                "spell or ability that makes an object a copy is not modelled)"
            )
        return None
    kind = m.group(1)
    if kind not in _COPY_KINDS:
        raise LayerTextError(f"unknown kind {kind!r} to copy (known: {', '.join(_COPY_KINDS)})")
    fields: dict[str, Any] = {}
    for part in re.split(r",? and (?=it)", m.group(2) or ""):
        if not part:
            continue
        if e := re.fullmatch(r"it's (?:an? )?(\d+)/(\d+)", part):
            fields["pt"] = (pt_value(e.group(1), "power"), pt_value(e.group(2), "toughness"))
        elif e := re.fullmatch(r"it has ([a-z ,]+)", part):
            kws = frozenset(k.strip() for k in re.split(r",? and |, ", e.group(1)) if k.strip())
            fields["keywords"] = fields.get("keywords", frozenset()) | kws
        elif e := re.fullmatch(
            r"it's an? (artifact|creature|enchantment|land) in addition to its other types", part
        ):
            fields["add_type"] = e.group(1)
        elif part in ("it isn't legendary", "it's not legendary"):
            fields["not_legendary"] = True
        else:
            raise LayerTextError(
                f"unknown copy exception {part!r} (known: it's N/N, it has <keywords>, it's an "
                "<artifact|creature|enchantment|land> in addition to its other types, it isn't "
                "legendary; 707.9)"
            )
    return CopySpec(text, kind, **fields)
