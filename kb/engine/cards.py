"""Card definitions: the small card language shared by ``corpus/cards.toml`` and examples.

A definition reads ``<type> <cost> [N/N]; <effect or keyword>; …``, for example
``creature {G} 1/1; ability {T}: add {G}`` (Llanowar Elves) or
``instant {R}{W}; deal 3 damage to any target and gain 3 life`` (Lightning Helix).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kb.base.paths import CORPUS_DIR
from kb.engine.copy_text import CopySpec, parse_copy
from kb.engine.effect_text import (
    KEYWORDS,
    CardError,
    Effect,
    parse_effects,
)
from kb.engine.layer_text import (
    BASIC_LAND_TYPES,
    CREATURE_TYPES,
    LayerTextError,
    ReplacementSpec,
    StaticAbility,
    parse_static,
)
from kb.engine.limits import bounded
from kb.engine.mana import ManaCost, ManaError, parse_cost
from kb.engine.trigger_text import TriggeredAbility, parse_trigger

CARDS_FILE = CORPUS_DIR / "cards.toml"

#: Supertypes the engine models (205.4): basic lands and the legend rule (704.5j).
SUPERTYPES = ("basic", "legendary")
#: Subtypes the engine models (205.3): Auras (303.4), Equipment (301.5).
SUBTYPES = ("aura", "equipment", "room")
PERMANENT_TYPES = ("artifact", "creature", "enchantment", "land", "planeswalker", "battle")
CARD_TYPES = (*PERMANENT_TYPES, "instant", "sorcery", "conspiracy")


def unquote(text: str) -> str:
    """A name as written, without the quotes that let it contain commas: ``"Borrowing 100,000
    Arrows"`` (straight or curly quotes)."""
    text = text.strip()
    if len(text) >= 2 and text[0] in '"“' and text[-1] in '"”':
        return text[1:-1].strip()
    return text


@dataclass(frozen=True, slots=True)
class Ability:
    """An activated ability ``[cost]: [effect]`` (602.1); a mana ability when 605.1a says so."""

    mana_cost: ManaCost
    tap: bool
    effects: tuple[Effect, ...]
    text: str
    loyalty: int | None = None  # a loyalty ability's cost: +N, -N or 0 (606.4)
    equip: bool = False  # equip [cost]: attach to target creature you control (702.6a)

    is_mana_ability: bool = field(init=False, default=False)
    produces: tuple[tuple[str, int], ...] = field(init=False, default=())  # the mana it adds

    def __post_init__(self) -> None:
        # 605.1a: no target, could add mana, not a loyalty ability (computed once: it is asked
        # for every permanent whenever legal actions are listed).
        mana = (
            self.loyalty is None
            and any(e.kind == "add" for e in self.effects)
            and not any(e.target for e in self.effects)
        )
        object.__setattr__(self, "is_mana_ability", mana)
        produced: dict[str, int] = {}
        for effect in self.effects:
            for colour, n in effect.mana:
                produced[colour] = produced.get(colour, 0) + n
        object.__setattr__(self, "produces", tuple(produced.items()))

    @property
    def sorcery_speed(self) -> bool:
        """Activated only as a sorcery: loyalty abilities (606.3) and equip (702.6a)."""
        return self.loyalty is not None or self.equip


@dataclass(frozen=True, slots=True)
class CardDef:
    """A card's characteristics as far as timing is concerned."""

    name: str
    types: tuple[str, ...]
    cost: ManaCost | None
    power: int | None = None
    toughness: int | None = None
    keywords: frozenset[str] = frozenset()
    morph: ManaCost | None = None
    effects: tuple[Effect, ...] = ()
    abilities: tuple[Ability, ...] = ()
    triggers: tuple[TriggeredAbility, ...] = ()
    anthem: tuple[int, int] | None = None  # static: creatures you control get +N/+N
    text: str = ""
    supertypes: tuple[str, ...] = ()
    subtypes: tuple[str, ...] = ()
    loyalty: int | None = None  # a planeswalker's printed loyalty (306.5b)
    #: static: enchanted/equipped creature gets +N/+N and has keywords (303.4, 301.5)
    attached_bonus: tuple[int, int, frozenset[str]] | None = None
    modes: tuple[tuple[Effect, ...], ...] = ()  # choose one: each mode's effects (700.2)
    foretell: ManaCost | None = None  # 702.143
    plot: ManaCost | None = None  # 702.170
    suspend: tuple[int, ManaCost] | None = None  # 702.62: time counters, cost
    companion: bool = False  # 702.139 (its condition is not modelled)
    discard_as_instant: bool = False  # 116.2e: Circling Vultures
    no_attacks: bool = False  # static: creatures can't attack (a restriction, 508.1c)
    ignore_cost: ManaCost | None = None  # any player may pay this to ignore it (116.2d)
    door: tuple[str, ManaCost] | None = None  # a Room's second door and its unlock cost (709.5e)
    statics: tuple[StaticAbility, ...] = ()  # layered continuous effects (613, layer_text)
    replacements: tuple[ReplacementSpec, ...] = ()  # replacement and prevention effects (614)
    colors: tuple[str, ...] | None = None  # set by an effect (layer 5); else from the cost (202.2)
    copy_as: CopySpec | None = None  # "you may have this creature enter as a copy of …" (707.5)

    #: computed once: what state-based actions ask of every permanent at every check
    kind_flags: tuple[bool, bool, bool, bool] = field(init=False, default=(False,) * 4)
    #: computed once: what listing legal actions asks of every card in hand (a land; an
    #: instant or flash; a special action: foretell, plot, suspend, discard as an instant; a
    #: new special action from the hand must be added here and in Game._candidate_actions)
    hand_flags: tuple[bool, bool, bool] = field(init=False, default=(False,) * 3)
    #: computed once, for state-based actions on it face up without counters: 0 when none can
    #: apply, 1 for a creature with toughness (only damage or effects can make it lethal), else 2
    #: (a new check of 704.5 for another kind of permanent must be reflected here)
    sba_class: int = field(init=False, default=0)
    #: computed once: its {T} mana abilities as (index, mana it adds, amount), for payments
    tap_mana: tuple[tuple[int, tuple[tuple[str, int], ...], int], ...] = field(
        init=False, default=()
    )
    #: computed once: all its abilities are {T} mana abilities (a tapped one can do nothing)
    tap_only: bool = field(init=False, default=True)
    #: computed once, for payments: its {T} mana abilities as (index, mana it adds as a dict,
    #: amount), the most mana one activation makes (at least 1) and the most of each colour
    tap_sources: tuple[tuple[int, dict[str, int], int], ...] = field(
        init=False, default=(), compare=False, repr=False
    )
    tap_most: int = field(init=False, default=1, compare=False, repr=False)
    #: computed once: some effect of the card or of one of its modes divides damage (601.2d)
    divides: bool = field(init=False, default=False, compare=False, repr=False)
    tap_best: tuple[tuple[str, int], ...] = field(init=False, default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        flags = (
            "creature" in self.types,
            "planeswalker" in self.types,
            "aura" in self.subtypes,
            "equipment" in self.subtypes,
        )
        object.__setattr__(self, "kind_flags", flags)
        if flags == (True, False, False, False) and (self.toughness or 0) > 0:
            object.__setattr__(self, "sba_class", 1)
        elif any(flags):
            object.__setattr__(self, "sba_class", 2)
        hand = (
            "land" in self.types,
            "instant" in self.types or "flash" in self.keywords,
            bool(self.foretell or self.plot or self.suspend or self.discard_as_instant),
        )
        object.__setattr__(self, "hand_flags", hand)
        tap_mana = tuple(
            (i, a.produces, sum(n for _, n in a.produces))
            for i, a in enumerate(self.abilities)
            if a.is_mana_ability and a.tap
        )
        object.__setattr__(self, "tap_mana", tap_mana)
        object.__setattr__(self, "tap_only", len(tap_mana) == len(self.abilities))
        best: dict[str, int] = {}
        for _, produces, _ in tap_mana:
            for colour, n in produces:
                best[colour] = max(best.get(colour, 0), n)
        sources = tuple((i, dict(produces), amount) for i, produces, amount in tap_mana)
        object.__setattr__(self, "tap_sources", sources)
        object.__setattr__(self, "tap_most", max([1, *(amount for *_, amount in tap_mana)]))
        object.__setattr__(self, "tap_best", tuple(best.items()))
        every = [*self.effects, *(e for mode in self.modes for e in mode)]
        object.__setattr__(self, "divides", any(e.kind == "divided" for e in every))

    def has_sub(self, subtype: str) -> bool:
        """Has this subtype (Aura, Equipment), case-insensitive."""
        return subtype.lower() in self.subtypes

    @property
    def legendary(self) -> bool:
        """Has the legendary supertype (205.4d)."""
        return "legendary" in self.supertypes

    def is_a(self, card_type: str) -> bool:
        """Has this card type."""
        return card_type in self.types

    @property
    def is_permanent(self) -> bool:
        """A permanent card (110.4a)."""
        return any(t in PERMANENT_TYPES for t in self.types)

    @property
    def targets(self) -> list[str]:
        """The kinds of target its spell ability needs, in order."""
        return [e.target for e in self.effects if e.target]


@dataclass
class CardPool:
    """Card definitions by name (case-insensitive), the pool plus any inline definitions."""

    cards: dict[str, CardDef] = field(default_factory=dict)

    def add(self, card: CardDef) -> None:
        """Add or replace a definition."""
        self.cards[card.name.lower()] = card

    def get(self, name: str) -> CardDef | None:
        """The definition of a card name, or None."""
        return self.cards.get(unquote(name).lower())

    def copy(self) -> CardPool:
        """A pool an example can extend without changing the shared one."""
        return CardPool(dict(self.cards))


# ---- parsing --------------------------------------------------------------------------------

_PT = re.compile(r"^(-?\d+)/(-?\d+)$")


def parse_ability(text: str) -> Ability:
    """Parse ``{1}, {T}: deal 1 damage to any target`` (602.1: cost, colon, effect)."""
    cost_text, sep, body = text.partition(":")
    if not sep:
        raise CardError(f"an ability reads '<cost>: <effect>': {text!r}")
    tap = bool(re.search(r"\{t\}", cost_text, re.I))
    mana = re.sub(r"\{t\}|,", "", cost_text, flags=re.I)
    try:
        cost = parse_cost(mana)
    except ManaError as err:
        raise CardError(f"ability cost: {err}") from None
    return Ability(cost, tap, parse_effects(body), text.strip())


def _parse_head(name: str, head: str) -> dict[str, Any]:
    """``legendary creature — Aura {1}{W} 2/2``: supertypes, types, subtypes, cost, P/T. A word
    the engine does not model is an error naming it (nothing is silently dropped)."""
    supertypes: list[str] = []
    types: list[str] = []
    subtypes: list[str] = []
    cost_tokens: list[str] = []
    power = toughness = None
    after_dash = False
    for token in head.split():
        low = token.lower()
        if low.startswith("{"):
            cost_tokens.append(token)
        elif low == "*/*":  # defined by a characteristic-defining ability (604.3)
            power = toughness = 0
        elif _PT.match(low):
            power, toughness = (
                bounded(x, "power/toughness", error=CardError) for x in low.split("/")
            )
        elif low in ("—", "-", "–"):
            if not types:
                raise CardError(f"{name}: a dash comes after the card types, before subtypes")
            after_dash = True
        elif after_dash:
            if low not in (*SUBTYPES, *CREATURE_TYPES, *BASIC_LAND_TYPES):
                raise CardError(
                    f"{name}: the subtype {token!r} is not modelled by the engine (modelled: "
                    f"{', '.join(t.capitalize() for t in SUBTYPES)}); leave it out"
                )
            subtypes.append(low)
        elif low in CARD_TYPES:
            types.append(low)
        elif low in SUPERTYPES and not types:
            supertypes.append(low)
        else:
            raise CardError(
                f"{name}: unknown word {token!r} in '{head}' (expected a supertype "
                f"({', '.join(SUPERTYPES)}), a card type, '— <subtype>', a cost, N/N)"
            )
    if not types:
        raise CardError(f"{name}: no card type in '{head}' (one of {', '.join(CARD_TYPES)})")
    for sub, card_type in (("aura", "enchantment"), ("equipment", "artifact")):
        if sub in subtypes and card_type not in types:
            raise CardError(f"{name}: {sub.capitalize()} is a subtype of {card_type}s")
    try:
        cost = parse_cost("".join(cost_tokens)) if cost_tokens or "land" not in types else None
    except ManaError as err:
        raise CardError(f"{name}: {err}") from None
    if "creature" in types and power is None:
        raise CardError(f"{name}: a creature needs power/toughness (N/N)")
    return {
        "supertypes": tuple(supertypes),
        "types": tuple(types),
        "subtypes": tuple(subtypes),
        "cost": cost,
        "power": power,
        "toughness": toughness,
    }


_ATTACHED = re.compile(
    r"^static (enchanted|equipped) creature gets ([+-]\d+)/([+-]\d+)(?: and has (.+))?$"
)


def parse_card(name: str, text: str) -> CardDef:
    """Parse one definition: ``instant {R}; deal 3 damage to any target``."""
    name = unquote(name)
    parts = [p.strip() for p in text.split(";")]
    fields: dict[str, Any] = _parse_head(name, parts[0])
    keywords: set[str] = set()
    effects: list[Effect] = []
    abilities: list[Ability] = []
    triggers: list[TriggeredAbility] = []
    modes: list[tuple[Effect, ...]] = []
    enchant = False
    for part in parts[1:]:
        low = " ".join(part.lower().split())
        if not low:
            continue
        try:
            if low in KEYWORDS:
                keywords.add(low)
            elif low.startswith("morph "):
                fields["morph"] = parse_cost(part[6:])
            elif low.startswith("ability "):
                abilities.append(parse_ability(part[8:]))
            elif m := re.match(r"^loyalty ([+-]?\d+)\s*:\s*(.+)$", low):
                abilities.append(
                    Ability(
                        ManaCost(),
                        False,
                        parse_effects(m.group(2)),
                        part,
                        bounded(m.group(1), "loyalty", error=CardError),
                    )
                )
            elif m := re.match(r"^loyalty (\d+)$", low):
                fields["loyalty"] = bounded(m.group(1), "loyalty", error=CardError)
            elif m := re.match(r"^equip ((?:\{[^}]*\})+)$", low):
                effects_ = (
                    Effect("attach", "attach to target creature you control", target="yours"),
                )
                abilities.append(Ability(parse_cost(m.group(1)), False, effects_, part, equip=True))
            elif low == "enchant creature":
                enchant = True
            elif low.startswith("trigger "):
                triggers.append(parse_trigger(part[8:], name))
            elif m := re.match(r"^static creatures you control get ([+-]\d+)/([+-]\d+)$", low):
                fields["anthem"] = (
                    bounded(m.group(1), "power", error=CardError),
                    bounded(m.group(2), "toughness", error=CardError),
                )
            elif m := _ATTACHED.match(low):
                kws = frozenset(
                    k.strip() for k in re.split(r",? and |, ", m.group(4) or "") if k.strip()
                )
                unknown = sorted(k for k in kws if k not in KEYWORDS)
                if unknown:
                    raise CardError(f"unknown keyword {unknown[0]!r}")
                fields["attached_bonus"] = (
                    bounded(m.group(2), "power", error=CardError),
                    bounded(m.group(3), "toughness", error=CardError),
                    kws,
                )
            elif m := re.match(r"^choose one\s*[:—-]\s*(.+)$", low):
                modes.extend(parse_effects(mode) for mode in m.group(1).split("|"))
                if len(modes) < 2:
                    raise CardError("'choose one: <mode> | <mode>' needs two modes or more")
            elif m := re.match(r"^foretell ((?:\{[^}]*\})+)$", low):
                fields["foretell"] = parse_cost(m.group(1))
            elif m := re.match(r"^plot ((?:\{[^}]*\})+)$", low):
                fields["plot"] = parse_cost(m.group(1))
            elif m := re.match(r"^suspend (\d+)\s*[—-]?\s*((?:\{[^}]*\})+)$", low):
                fields["suspend"] = (
                    bounded(m.group(1), "suspend", error=CardError),
                    parse_cost(m.group(2)),
                )
            elif low == "companion":
                fields["companion"] = True
            elif low == "you may discard this card any time you could cast an instant":
                fields["discard_as_instant"] = True
            elif low == "static creatures can't attack":
                fields["no_attacks"] = True
            elif m := re.match(
                r"^any player may pay ((?:\{[^}]*\})+) to ignore this effect until end of turn$",
                low,
            ):
                fields["ignore_cost"] = parse_cost(m.group(1))
            elif m := re.match(r"^door (.+?) ((?:\{[^}]*\})+)$", part.strip(), re.I):
                fields["door"] = (m.group(1).strip(), parse_cost(m.group(2)))
            elif (copy := _copy(_self_named(low.removeprefix("static "), name))) is not None:
                fields["copy_as"] = copy
            elif low.startswith("static ") and (found := _static(part[7:])) is not None:
                key = "statics" if isinstance(found, StaticAbility) else "replacements"
                fields[key] = (*fields.get(key, ()), found)
            elif low.startswith("static "):
                raise CardError(
                    f"unknown static ability {part[7:].strip()!r} (the forms the engine reads are "
                    "listed in the example language's documentation, kb/engine/script.py: "
                    "'Effects in the card language')"
                )
            else:
                effects.extend(parse_effects(part))
        except (CardError, ManaError) as err:
            raise CardError(f"{name}: {err}") from None
    types = fields["types"]
    spoken = [
        *effects,
        *(e for mode in modes for e in mode),
        *(e for a in abilities for e in a.effects),
    ]
    if any(e.scope == "that player" for e in spoken):
        raise CardError(
            f"{name}: 'that player' is said by a trigger 'at the beginning of each player's <step>'"
        )
    if (effects or modes) and any(t in PERMANENT_TYPES for t in types):
        what = effects[0].text if effects else "choose one"
        raise CardError(
            f"{name}: a permanent has abilities ('ability', 'trigger'), not spell effects: {what!r}"
        )
    if "aura" in fields["subtypes"]:
        if not enchant:
            raise CardError(f"{name}: an Aura needs 'enchant creature' (303.4a)")
        effects.append(Effect("attach", "enchant creature", target="creature"))
    elif enchant:
        raise CardError(f"{name}: only an Aura has 'enchant creature' (303.4a)")
    if "planeswalker" in types and fields.get("loyalty") is None:
        raise CardError(f"{name}: a planeswalker needs 'loyalty N' (306.5b)")
    if fields.get("door") and "room" not in fields["subtypes"]:
        raise CardError(f"{name}: only a Room has doors (709.5)")
    if fields.get("ignore_cost") and not fields.get("no_attacks"):
        raise CardError(
            f"{name}: 'any player may pay … to ignore this effect' follows a static effect"
        )
    if any(a.equip for a in abilities) and "equipment" not in fields["subtypes"]:
        raise CardError(f"{name}: only an Equipment has equip (702.6a)")
    return CardDef(
        name=name.strip(),
        keywords=frozenset(keywords),
        effects=tuple(effects),
        abilities=tuple(abilities),
        triggers=tuple(triggers),
        modes=tuple(modes),
        text=text,
        **fields,
    )


def _self_named(text: str, name: str) -> str:
    """ "you may have Clone enter as a copy of …" (the Oracle wording names the card itself)
    read as "you may have this permanent enter …"."""
    return re.sub(
        rf"^you may have {re.escape(name.lower())} enter ",
        "you may have this permanent enter ",
        text,
    )


def _copy(text: str) -> CopySpec | None:
    """707.5: "you may have this creature enter as a copy of any creature on the battlefield"
    (with or without ``static``), its exceptions' keywords checked here."""
    try:
        found = parse_copy(text)
    except LayerTextError as err:
        raise CardError(str(err)) from None
    unknown = sorted(k for k in found.keywords if k not in KEYWORDS) if found else []
    if unknown:
        raise CardError(f"unknown keyword {unknown[0]!r} in the copy exception")
    return found


def _static(text: str) -> StaticAbility | ReplacementSpec | None:
    """A static ability of kb.engine.layer_text, its "instead" effects parsed here."""
    try:
        found = parse_static(text)
    except LayerTextError as err:
        raise CardError(str(err)) from None
    if isinstance(found, ReplacementSpec) and found.instead:
        return replace(found, effects=parse_effects(found.instead))
    return found


def parse_card_line(line: str) -> CardDef:
    """Parse the example-language form ``<Name>: <definition>``; a name with a comma or colon
    is quoted: ``"Isamaru, Hound of Konda": legendary creature {W} 2/2``."""
    line = line.strip()
    m = re.match(r'^["“](.+?)["”]\s*:(.*)$', line)
    if m:
        name, sep, text = m.group(1), ":", m.group(2)
    else:
        name, sep, text = line.partition(":")
        if "," in name:
            raise CardError(f'a card name with a comma is quoted: card "{name.strip()}": …')
    if not sep or not name.strip():
        raise CardError("a card reads 'card <Name>: <type> <cost> [N/N]; <effect>'")
    return parse_card(name.strip(), text)


#: The placeholder card of libraries given as a count.
LIBRARY_CARD = CardDef(name="Card", types=("sorcery",), cost=None, text="a card of unknown content")


def load_pool(path: Path = CARDS_FILE) -> CardPool:
    """Read ``cards.toml`` (``[[card]]`` tables with ``name`` and ``text``) into a pool."""
    with path.open("rb") as fh:
        try:
            data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as err:
            raise CardError(f"{path}: {err}") from None
    pool = CardPool()
    for i, entry in enumerate(data.get("card", []), 1):
        if "name" not in entry or "text" not in entry:
            raise CardError(f"{path}: card #{i} needs 'name' and 'text'")
        try:
            pool.add(parse_card(entry["name"], entry["text"]))
        except CardError as err:
            raise CardError(f"{path}: {err}") from None
    return pool


_DEFAULT: CardPool | None = None


def default_pool() -> CardPool:
    """The shipped card pool (read once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_pool()
    return _DEFAULT
