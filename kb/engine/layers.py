"""The layer system (613): an object's characteristics from its card and the continuous effects.

:func:`compute` starts from each permanent's printed card (613.1) and applies the continuous
effects of static abilities and of resolved spells and abilities layer by layer: copy (1),
control (2), text (3), type (4), color (5), abilities (6) and power/toughness (7a-7d),
characteristic-defining abilities first (613.3), then in timestamp order (613.7) unless an
effect depends on another (613.8). It is pure: the game (:mod:`kb.engine.continuous`) gives it
the permanents and the effects and stores what it returns. The static abilities that apply
from layer 4 on are those the objects have after layers 1-3 (a copy's, the text as changed).
Counters and "gets +N/+N until end of turn" effects are read live by the game in sublayer 7c
(613.4c, 2025-11-14 edition), and switching in 7d.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from kb.engine.cards import Ability, CardDef, parse_ability
from kb.engine.copy_text import CopyValue
from kb.engine.layer_text import (
    BASIC_LAND_TYPES,
    CREATURE_TYPES,
    LAYERS,
    LayerPart,
    LayerTextError,
    Selector,
    StaticAbility,
    parse_static,
)

#: The mana ability each basic land type gives (305.6).
_MANA = {t: parse_ability(f"{{T}}: add {{{c}}}") for t, c in BASIC_LAND_TYPES.items()}
#: The order of card types in a type line (Artifact Land, Enchantment Creature, Land Creature).
_TYPE_ORDER = ("artifact", "enchantment", "land", "creature", "planeswalker", "battle")
_COLOR_OF = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}
_LAYER_NAMES = {
    "1": "layer 1 (copy)",
    "2": "layer 2 (control)",
    "3": "layer 3 (text)",
    "4": "layer 4 (type)",
    "5": "layer 5 (color)",
    "6": "layer 6 (abilities)",
    "7a": "layer 7a (characteristic-defining power/toughness)",
    "7b": "layer 7b (base power/toughness set)",
    "7c": "layer 7c (power/toughness modified)",
    "7d": "layer 7d (power and toughness switched)",
}


@dataclass(slots=True, eq=False)
class Source:
    """One continuous effect, as the layer system applies it: from a static ability of a
    permanent (``ability``, ``source_id``) or created by a resolving spell or ability
    (``fixed``: the objects it was locked onto as it was created, 611.2c)."""

    stamp: int
    name: str
    parts: tuple[LayerPart, ...]
    controller: int
    selector: Selector | None = None
    fixed: frozenset[int] | None = None
    source_id: int | None = None
    ability: StaticAbility | None = None
    cda: bool = False
    anthem: bool = False  # the card's "creatures you control get +N/+N" (CardDef.anthem)
    locked: frozenset[int] | None = None  # the objects it applies to, once it starts (613.6)


@dataclass(slots=True)
class Chars:
    """An object's characteristics while the layers are applied."""

    oid: int
    printed: CardDef
    controller: int
    types: list[str]
    subtypes: list[str]
    colors: list[str]
    keywords: set[str]
    abilities: tuple[Ability, ...]
    triggers: tuple[Any, ...]
    statics: tuple[StaticAbility, ...]
    replacements: tuple[Any, ...]
    anthem: tuple[int, int] | None
    attached_bonus: Any
    no_attacks: bool
    power: int | None
    toughness: int | None
    lost_at: int = 0  # the timestamp of the last effect that removed all its abilities
    bonus: tuple[int, int] = (0, 0)  # 7c, from continuous effects (counters are read live)
    switched: bool = False  # 7d
    notes: list[str] = field(default_factory=list)
    touched: bool = False

    def copy(self) -> Chars:
        """A scratch copy, to see what applying an effect would change (613.8a)."""
        return replace(
            self,
            types=list(self.types),
            subtypes=list(self.subtypes),
            colors=list(self.colors),
            keywords=set(self.keywords),
            notes=[],
        )

    def view(self, memo: dict[tuple[Any, ...], tuple[CardDef, CardDef]] | None = None) -> CardDef:
        """The characteristics as a card definition the rest of the engine reads (the same
        object for the same characteristics, through ``memo``)."""
        if not self.touched:
            return self.printed
        key = (
            id(self.printed),
            tuple(self.types),
            tuple(self.subtypes),
            tuple(self.colors),
            frozenset(self.keywords),
            self.abilities,
            self.triggers,
            self.statics,
            self.replacements,
            self.anthem,
            self.attached_bonus,
            self.no_attacks,
            self.power,
            self.toughness,
        )
        found = memo.get(key) if memo is not None else None
        if found is not None and found[0] is self.printed:  # the id is of this very card
            return found[1]
        made = replace(
            self.printed,
            types=tuple(self.types),
            subtypes=tuple(self.subtypes),
            colors=tuple(self.colors),
            keywords=frozenset(self.keywords),
            abilities=self.abilities,
            triggers=self.triggers,
            statics=self.statics,
            replacements=self.replacements,
            anthem=self.anthem,
            attached_bonus=self.attached_bonus,
            no_attacks=self.no_attacks,
            power=self.power,
            toughness=self.toughness,
        )
        if memo is not None:
            memo[key] = (self.printed, made)  # holding the card: its id is not reused
        return made


def colors_of(card: CardDef) -> tuple[str, ...]:
    """An object's colors: set by an effect, else its mana cost's colored symbols (202.2)."""
    if card.colors is not None:
        return card.colors
    if card.cost is None:
        return ()
    return tuple(_COLOR_OF[c] for c, _ in card.cost.coloured if c in _COLOR_OF)


def start(oid: int, card: CardDef, controller: int) -> Chars:
    """613.1: the characteristics printed on the card."""
    return Chars(
        oid,
        card,
        controller,
        list(card.types),
        list(card.subtypes),
        list(colors_of(card)),
        set(card.keywords),
        card.abilities,
        card.triggers,
        card.statics,
        card.replacements,
        card.anthem,
        card.attached_bonus,
        card.no_attacks,
        card.power,
        card.toughness,
    )


def matches(sel: Selector, rec: Chars, source: Source) -> bool:
    """Whether a static ability's selector applies to an object as it is now."""
    if sel.kind == "self":
        return rec.oid == source.source_id
    if sel.other and rec.oid == source.source_id:
        return False
    if sel.yours and rec.controller != source.controller:
        return False
    if sel.opponents and rec.controller == source.controller:
        return False
    if sel.non == "aura" and "aura" in rec.subtypes:
        return False
    if sel.non == "basic" and "basic" in rec.printed.supertypes:
        return False
    if sel.color and sel.color not in rec.colors:
        return False
    if sel.kind == "permanent":
        return True
    if sel.kind in CREATURE_TYPES:
        return "creature" in rec.types and sel.kind in rec.subtypes
    return sel.kind in rec.types


Counter = Callable[[Chars, str, dict[int, Chars]], int]


@dataclass(slots=True)
class Result:
    """What the layers give: each object's characteristics, with the trace of what applied."""

    chars: dict[int, Chars]


Statics = Callable[[dict[int, Chars]], list[Source]]


def compute(
    objects: Iterable[tuple[int, CardDef, int]],
    sources: list[Source],
    count: Counter,
    statics: Statics | None = None,
) -> Result:
    """Apply ``sources`` to the objects (id, printed card, controller before control effects)
    layer by layer; ``count`` answers a characteristic-defining ability's "the number of …";
    ``statics`` gives the effects of the objects' static abilities as layers 1-3 made them (a
    copy has the static abilities it copied, 707.2; a text change rewrites them, 612)."""
    recs = {oid: start(oid, card, controller) for oid, card, controller in objects}
    for layer in LAYERS:
        if layer == "4" and statics is not None:
            sources = [*sources, *statics(recs)]
        pending = [s for s in sources if any(p.layer == layer for p in s.parts)]
        if not pending:
            continue
        # 613.3 and 613.4a: characteristic-defining abilities first, then the others
        for group in ([s for s in pending if s.cda], [s for s in pending if not s.cda]):
            _apply_group(layer, group, recs, count)
    return Result(recs)


def _apply_group(layer: str, group: list[Source], recs: dict[int, Chars], count: Counter) -> None:
    """One layer's effects in timestamp order, an effect waiting for those it depends on."""
    waiting = sorted(group, key=lambda s: s.stamp)
    while waiting:
        deps = {
            id(s): [o for o in waiting if o is not s and _depends(layer, s, o, recs)]
            for s in waiting
        }
        free = [s for s in waiting if not deps[id(s)]]
        loop = not free
        chosen = (free or waiting)[0]  # 613.8b: a dependency loop goes by timestamp
        if loop:
            why = "timestamp order (the effects depend on each other in a loop, 613.8b)"
        elif chosen is not waiting[0] and chosen in deps[id(waiting[0])]:
            first = waiting[0]
            why = (
                f"before {first.name} despite its later timestamp: {first.name} depends on it "
                "(613.8a), as applying it changes what that effect applies to or whether it exists"
            )
        else:
            after = [o.name for o in group if o not in waiting and o.stamp > chosen.stamp]
            why = (
                f"after {', '.join(after)}, on which it depends (613.8)"
                if after
                else f"timestamp order (timestamp {chosen.stamp}, 613.7)"
            )
        _apply(layer, chosen, recs, count, why)
        waiting.remove(chosen)


def _affected(source: Source, recs: dict[int, Chars]) -> frozenset[int]:
    if source.locked is not None:
        return source.locked
    if source.fixed is not None:
        return frozenset(o for o in source.fixed if o in recs)
    assert source.selector is not None
    return frozenset(oid for oid, rec in recs.items() if matches(source.selector, rec, source))


def _exists(source: Source, recs: dict[int, Chars]) -> bool:
    """A static ability's effect that hasn't started exists only while its source still has
    the ability (613.8a: applying another effect may change "the existence of" it)."""
    if source.ability is None or source.locked is not None:
        return True
    rec = recs.get(source.source_id or -1)
    if rec is None:
        return False
    if source.anthem:
        return rec.anthem is not None
    return source.ability in rec.statics


def _depends(layer: str, s: Source, o: Source, recs: dict[int, Chars]) -> bool:
    """613.8a: would applying ``o`` first change whether ``s`` exists or what it applies to?"""
    if s.cda != o.cda or s.locked is not None or not _exists(o, recs):
        return False
    scratch = {oid: rec.copy() for oid, rec in recs.items()}
    for oid in _affected(o, recs):
        for part in o.parts:
            if part.layer == layer:
                _do(part, scratch[oid], o, scratch, lambda *_: 0)
    if _exists(s, recs) != _exists(s, scratch):
        return True
    return s.fixed is None and _affected(s, recs) != _affected(s, scratch)


def _apply(layer: str, source: Source, recs: dict[int, Chars], count: Counter, why: str) -> None:
    if not _exists(source, recs):
        rec = recs.get(source.source_id or -1)
        if rec is not None:
            rec.notes.append(
                f"{_LAYER_NAMES[layer]}: its own ability ({source.ability.text if source.ability else ''}) "
                "no longer exists, so it has no effect"
            )
        return
    targets = _affected(source, recs)
    source.locked = targets
    for oid in sorted(targets):
        rec = recs[oid]
        for part in source.parts:
            if part.layer == layer:
                _do(part, rec, source, recs, count)
                rec.touched = True
                rec.notes.append(f"{_LAYER_NAMES[layer]}: {source.name} {part.says()}; {why}")


def _lose_abilities(rec: Chars) -> None:
    rec.keywords = set()
    rec.abilities = ()
    rec.triggers = ()
    rec.statics = ()
    rec.replacements = ()
    rec.anthem = None
    rec.attached_bonus = None
    rec.no_attacks = False


def _do(
    part: LayerPart, rec: Chars, source: Source, recs: dict[int, Chars], count: Counter
) -> None:
    op, value = part.op, part.value
    if op == "copy":
        _copy_values(rec, value)
    elif op == "text":
        _change_text(rec, *value)
    elif op == "control":
        rec.controller = source.controller
    elif op == "add type":
        if value not in rec.types:
            rec.types.append(value)
    elif op == "creature type":
        rec.subtypes = [t for t in rec.subtypes if t not in CREATURE_TYPES] + [value]
    elif op == "land type":  # 305.7: the old land types and rules-text abilities are lost
        rec.subtypes = [t for t in rec.subtypes if t not in BASIC_LAND_TYPES] + [value]
        _lose_abilities(rec)
        rec.abilities = (_MANA[value],)
    elif op == "add land type":
        if value not in rec.subtypes:
            rec.subtypes.append(value)
            if _MANA[value] not in rec.abilities:
                rec.abilities = (*rec.abilities, _MANA[value])
    elif op == "color":
        rec.colors = [value]
    elif op == "lose all":
        _lose_abilities(rec)
        rec.lost_at = source.stamp
    elif op == "keywords":
        rec.keywords |= set(value)
    elif op == "set pt":
        rec.power, rec.toughness = value
    elif op == "set pt mana value":
        mv = rec.printed.cost.total if rec.printed.cost is not None else 0
        rec.power = rec.toughness = mv
    elif op == "count pt":
        rec.power = rec.toughness = count(rec, value, recs)
    elif op == "modify pt":
        rec.bonus = (rec.bonus[0] + value[0], rec.bonus[1] + value[1])
    elif op == "switch":
        rec.switched = not rec.switched


def _copy_values(rec: Chars, value: CopyValue) -> None:
    """707.2, 613.2a: the object's characteristics become the copiable values (its controller
    stays; counters, status and other effects are not characteristics and stay with it)."""
    made = start(rec.oid, value.card, rec.controller)
    rec.printed = made.printed
    rec.types, rec.subtypes, rec.colors = made.types, made.subtypes, made.colors
    rec.keywords, rec.abilities, rec.triggers = made.keywords, made.abilities, made.triggers
    rec.statics, rec.replacements, rec.anthem = made.statics, made.replacements, made.anthem
    rec.attached_bonus, rec.no_attacks = made.attached_bonus, made.no_attacks
    rec.power, rec.toughness = made.power, made.toughness


def _word(kind: str, old: str) -> re.Pattern[str]:
    """The word as written in rules text: a land type in the singular or plural (``plains``
    is both), a color word; never inside another word (612.2: a name is not changed)."""
    if kind == "basic land type" and old != "plains":
        return re.compile(rf"\b{old}(s?)\b", re.I)
    return re.compile(rf"\b{old}()\b", re.I)


def _change_text(rec: Chars, kind: str, old: str, new: str) -> None:
    """612.1-612.2: every instance of the word used as such in the object's rules text and type
    line becomes the new word: landwalk keywords, static abilities (read again from their new
    text), land subtypes and the mana ability of a basic land type (305.6)."""
    if kind == "basic land type":
        walk = f"{old}walk"
        if walk in rec.keywords:
            rec.keywords = (rec.keywords - {walk}) | {f"{new}walk"}
        if old in rec.subtypes:
            rec.subtypes = [new if t == old else t for t in rec.subtypes if t != new]
            rec.abilities = tuple(_MANA[new] if a == _MANA[old] else a for a in rec.abilities)
    elif f"protection from {old}" in rec.keywords:  # a color word (702.16a)
        rec.keywords = (rec.keywords - {f"protection from {old}"}) | {f"protection from {new}"}
    pattern = _word(kind, old)
    plural = new if new == "plains" else new + "s"
    statics = []
    for st in rec.statics:
        text = pattern.sub(lambda m: plural if m.group(1) else new, st.text)
        if kind == "basic land type":
            text = re.sub(rf"\b{old}walk\b", f"{new}walk", text, flags=re.I)
        if text == st.text:
            statics.append(st)
            continue
        try:
            found = parse_static(text)
        except LayerTextError:
            found = None
        statics.append(found if isinstance(found, StaticAbility) else st)
    rec.statics = tuple(statics)


def type_line(card: CardDef) -> str:
    """``Legendary Enchantment Creature — Frog``: supertypes, types, subtypes (205.1)."""
    types = sorted(card.types, key=lambda t: _TYPE_ORDER.index(t) if t in _TYPE_ORDER else 9)
    words = [w.capitalize() for w in (*card.supertypes, *types)]
    subs = [w.capitalize() for w in card.subtypes]
    return " ".join(words) + (" — " + " ".join(subs) if subs else "")
