"""Card definitions: the small card language shared by ``corpus/cards.toml`` and examples.

A definition reads ``<type> <cost> [N/N]; <effect or keyword>; …``, for example
``creature {G} 1/1; ability {T}: add {G}`` (Llanowar Elves) or
``instant {R}{W}; deal 3 damage to any target and gain 3 life`` (Lightning Helix).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from kb.engine.mana import ManaCost, ManaError, parse_cost, parse_mana
from kb.engine.steps import Step, parse_step
from kb.paths import CORPUS_DIR

CARDS_FILE = CORPUS_DIR / "cards.toml"

KEYWORDS = ("flash", "first strike", "split second", "haste", "deathtouch")
PERMANENT_TYPES = ("artifact", "creature", "enchantment", "land", "planeswalker", "battle")
CARD_TYPES = (*PERMANENT_TYPES, "instant", "sorcery")
#: Events a "trigger whenever …" can name.
TRIGGER_EVENTS = {
    "a creature enters": "enters",
    "another creature enters": "another enters",
    "a creature you control enters": "your creature enters",
    "a player casts a spell": "cast",
    "you cast a spell": "you cast",
    "an opponent casts a spell": "opponent casts",
    "you discard a card": "you discard",
    "a player discards a card": "discard",
    "a creature dies": "dies",
    "another creature dies": "another dies",
}


class CardError(ValueError):
    """A card definition the engine cannot read; the message says which part and why."""


@dataclass(frozen=True, slots=True)
class TriggerCondition:
    """When a triggered ability triggers: at the beginning of a step, or whenever an event."""

    step: Step | None = None
    whose: str = "each"  # "your" | "each" (a step of any turn) | "next" (delayed, 603.7)
    event: str | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Effect:
    """One instruction of a spell or ability, from a small vocabulary."""

    kind: str  # damage | gain | lose | draw | add | counter | pump | destroy | delayed | discard
    text: str
    amount: int = 0
    toughness: int = 0
    target: str | None = None  # "any" | "creature" | "player" | "spell": a targeted effect
    scope: str = "you"  # untargeted: "you" | "each opponent" | "each player" | "each creature"
    mana: tuple[tuple[str, int], ...] = ()
    until: str = "end of turn"
    delayed: TriggerCondition | None = None
    then: tuple[Effect, ...] = ()


@dataclass(frozen=True, slots=True)
class Ability:
    """An activated ability ``[cost]: [effect]`` (602.1); a mana ability when 605.1a says so."""

    mana_cost: ManaCost
    tap: bool
    effects: tuple[Effect, ...]
    text: str

    @property
    def is_mana_ability(self) -> bool:
        """605.1a: no target, could add mana (loyalty abilities are not modelled)."""
        return any(e.kind == "add" for e in self.effects) and not any(
            e.target for e in self.effects
        )


@dataclass(frozen=True, slots=True)
class TriggeredAbility:
    """A triggered ability ``trigger <condition>: <effect>`` (603.1)."""

    condition: TriggerCondition
    effects: tuple[Effect, ...]
    text: str


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
        return self.cards.get(name.strip().lower())

    def copy(self) -> CardPool:
        """A pool an example can extend without changing the shared one."""
        return CardPool(dict(self.cards))


# ---- parsing --------------------------------------------------------------------------------

_PT = re.compile(r"^(-?\d+)/(-?\d+)$")
_NUM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def _number(text: str) -> int:
    text = text.strip().lower()
    if text in _NUM_WORDS:
        return _NUM_WORDS[text]
    try:
        return int(text)
    except ValueError:
        raise CardError(f"not a number: {text!r}") from None


_EFFECT_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"^deals? (\w+) damage to (any target|target creature|target player|each opponent|each player|each creature)$"
        ),
        "damage",
    ),
    (re.compile(r"^(?:you )?gains? (\w+) life$"), "gain"),
    (re.compile(r"^(?:you )?loses? (\w+) life$"), "lose"),
    (re.compile(r"^each opponent loses (\w+) life$"), "opponents lose"),
    (re.compile(r"^(?:you )?draws? (\w+)(?: cards?)?$"), "draw"),
    (re.compile(r"^(?:you )?discards? (\w+)(?: cards?)?$"), "discard"),
    (re.compile(r"^add ((?:\{[^}]*\})+)$"), "add"),
    (re.compile(r"^counter target spell$"), "counter"),
    (re.compile(r"^destroy target creature$"), "destroy"),
    (re.compile(r"^target creature gets ([+-]\d+)/([+-]\d+)(?: until (.+))?$"), "pump"),
]
_TARGETS = {
    "any target": "any",
    "target creature": "creature",
    "target player": "player",
}


def parse_effects(text: str) -> tuple[Effect, ...]:
    """Parse ``deal 3 damage to any target and gain 3 life`` into effects (608.2c order)."""
    text = " ".join(text.strip().rstrip(".").split())
    delayed = re.match(r"^at the beginning of the next (.+?)(?: step| phase)?: (.+)$", text, re.I)
    if delayed:
        step = parse_step(delayed.group(1))
        if step is None:
            raise CardError(f"unknown step {delayed.group(1)!r}")
        cond = TriggerCondition(
            step=step, whose="next", text=f"at the beginning of the next {step.label}"
        )
        return (
            Effect(
                kind="delayed",
                text=text,
                delayed=cond,
                then=parse_effects(delayed.group(2)),
            ),
        )
    out: list[Effect] = []
    for part in re.split(r",? and |, then |; then ", text):
        out.append(_parse_one_effect(part.strip()))
    return tuple(out)


def _parse_one_effect(text: str) -> Effect:
    low = text.lower()
    for pattern, kind in _EFFECT_PATTERNS:
        m = pattern.match(low)
        if not m:
            continue
        if kind == "damage":
            who = m.group(2)
            if who in _TARGETS:
                return Effect("damage", text, amount=_number(m.group(1)), target=_TARGETS[who])
            return Effect("damage", text, amount=_number(m.group(1)), scope=who)
        if kind == "opponents lose":
            return Effect("lose", text, amount=_number(m.group(1)), scope="each opponent")
        if kind in ("gain", "lose", "draw", "discard"):
            return Effect(kind, text, amount=_number(m.group(1)))
        if kind == "add":
            try:
                mana = parse_mana(m.group(1))
            except ManaError as err:
                raise CardError(str(err)) from None
            return Effect("add", text, mana=tuple(mana.items()))
        if kind == "counter":
            return Effect("counter", text, target="spell")
        if kind == "destroy":
            return Effect("destroy", text, target="creature")
        if kind == "pump":
            until = (m.group(3) or "end of turn").strip()
            if until not in ("end of turn", "end of combat") and not until.startswith("your next "):
                raise CardError(f"unknown duration 'until {until}'")
            if until.startswith("your next ") and parse_step(until[10:]) is None:
                raise CardError(f"unknown step in 'until {until}'")
            return Effect(
                "pump",
                text,
                amount=int(m.group(1)),
                toughness=int(m.group(2)),
                target="creature",
                until=until,
            )
    raise CardError(
        f"unknown effect {text!r} (known: deal N damage to any target/target creature/target "
        "player/each opponent/each player, gain/lose N life, each opponent loses N life, draw N, "
        "discard N, add {mana}, counter target spell, destroy target creature, target creature "
        "gets +N/+N until end of turn, at the beginning of the next <step>: <effect>)"
    )


def parse_trigger(text: str) -> TriggeredAbility:
    """Parse ``at the beginning of your upkeep: …`` or ``whenever a creature enters: …``."""
    head, sep, body = text.partition(":")
    if not sep:
        raise CardError(f"a trigger needs ': <effect>' after its condition: {text!r}")
    head = " ".join(head.lower().split())
    effects = parse_effects(body)
    m = re.match(r"^at the beginning of (your|each|the|each player's) (.+)$", head)
    if m:
        step = parse_step(m.group(2))
        if step is None:
            raise CardError(f"unknown step {m.group(2)!r} in trigger")
        whose = "your" if m.group(1) == "your" else "each"
        return TriggeredAbility(TriggerCondition(step=step, whose=whose, text=head), effects, text)
    m = re.match(r"^whenever (.+)$", head)
    if m and m.group(1) in TRIGGER_EVENTS:
        cond = TriggerCondition(event=TRIGGER_EVENTS[m.group(1)], text=head)
        return TriggeredAbility(cond, effects, text)
    raise CardError(
        f"unknown trigger condition {head!r} (known: at the beginning of your/each <step>; "
        f"whenever {', '.join(TRIGGER_EVENTS)})"
    )


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


def parse_card(name: str, text: str) -> CardDef:
    """Parse one definition: ``instant {R}; deal 3 damage to any target``."""
    parts = [p.strip() for p in text.split(";")]
    head = parts[0].split()
    types: list[str] = []
    cost_tokens: list[str] = []
    power = toughness = None
    for token in head:
        low = token.lower()
        if low.startswith("{"):
            cost_tokens.append(token)
        elif _PT.match(low):
            power, toughness = (int(x) for x in low.split("/"))
        elif low in CARD_TYPES:
            types.append(low)
        elif low in ("basic", "legendary", "snow", "—", "-") or (types and not cost_tokens):
            continue  # supertypes and subtypes do not matter to timing
        else:
            raise CardError(
                f"{name}: unknown word {token!r} in '{parts[0]}' (expected a card type, a cost, N/N)"
            )
    if not types:
        raise CardError(f"{name}: no card type in '{parts[0]}' (one of {', '.join(CARD_TYPES)})")
    try:
        cost = parse_cost("".join(cost_tokens)) if cost_tokens or "land" not in types else None
    except ManaError as err:
        raise CardError(f"{name}: {err}") from None
    if "creature" in types and power is None:
        raise CardError(f"{name}: a creature needs power/toughness (N/N)")
    keywords: set[str] = set()
    effects: list[Effect] = []
    abilities: list[Ability] = []
    triggers: list[TriggeredAbility] = []
    morph = None
    anthem = None
    for part in parts[1:]:
        low = " ".join(part.lower().split())
        if not low:
            continue
        try:
            if low in KEYWORDS:
                keywords.add(low)
            elif low.startswith("morph "):
                morph = parse_cost(part[6:])
            elif low.startswith("ability "):
                abilities.append(parse_ability(part[8:]))
            elif low.startswith("trigger "):
                triggers.append(parse_trigger(part[8:]))
            elif m := re.match(r"^static creatures you control get ([+-]\d+)/([+-]\d+)$", low):
                anthem = (int(m.group(1)), int(m.group(2)))
            else:
                effects.extend(parse_effects(part))
        except (CardError, ManaError) as err:
            raise CardError(f"{name}: {err}") from None
    if effects and any(t in PERMANENT_TYPES for t in types):
        raise CardError(
            f"{name}: a permanent has abilities ('ability', 'trigger'), not spell effects: {effects[0].text!r}"
        )
    return CardDef(
        name=name.strip(),
        types=tuple(types),
        cost=cost,
        power=power,
        toughness=toughness,
        keywords=frozenset(keywords),
        morph=morph,
        effects=tuple(effects),
        abilities=tuple(abilities),
        triggers=tuple(triggers),
        anthem=anthem,
        text=text,
    )


def parse_card_line(line: str) -> CardDef:
    """Parse the example-language form ``<Name>: <definition>``."""
    name, sep, text = line.partition(":")
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
