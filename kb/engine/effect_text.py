"""The effect vocabulary of the card language: what one instruction of a spell or ability says.

``deal 3 damage to any target and gain 3 life`` becomes two :class:`Effect` objects (608.2c
order); :mod:`kb.engine.cards` builds whole card definitions from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from kb.engine.layer_text import LayerTextError, parse_whole_effect
from kb.engine.limits import MAX_NUMBER, MAX_REPEAT, bounded
from kb.engine.mana import ManaError, parse_cost, parse_mana
from kb.engine.steps import Step, parse_step

#: Keyword abilities the engine models (702), each where its rule applies.
KEYWORDS = (
    "flash",
    "first strike",
    "double strike",
    "split second",
    "haste",
    "deathtouch",
    "trample",
    "lifelink",
    "vigilance",
    "flying",
    "reach",
    "menace",
    "defender",
    "infect",
    "hexproof",  # 702.11b: not the target of an opponent's spells or abilities
    "indestructible",  # 702.12b: not destroyed (by lethal or deathtouch damage or "destroy")
    "shroud",  # 702.18a: not the target of any spell or ability
    "can block an additional creature each combat",  # 509.1a; its damage divided (510.1d)
    # 702.14: landwalk, unblockable while the defending player controls a land of that type
    "plainswalk",
    "islandwalk",
    "swampwalk",
    "mountainwalk",
    "forestwalk",
    # 702.16: protection from a color (damage, enchanting and equipping, blocking, targeting)
    "protection from white",
    "protection from blue",
    "protection from black",
    "protection from red",
    "protection from green",
)


class CardError(ValueError):
    """A card definition the engine cannot read; the message says which part and why."""


@dataclass(frozen=True, slots=True)
class TriggerCondition:
    """When a triggered ability triggers: at the beginning of a step, or whenever an event."""

    step: Step | None = None
    whose: str = "each"  # "your" | "each" (a step of any turn) | "next" (delayed, 603.7)
    event: str | None = None
    text: str = ""
    #: an intervening "if <this> is untapped" clause: checked on triggering and on resolution (603.4)
    if_untapped: bool = False


@dataclass(frozen=True, slots=True)
class Effect:
    """One instruction of a spell or ability, from a small vocabulary."""

    kind: str  # damage | gain | lose | draw | add | counter | pump | destroy | delayed | discard
    # | counters | poison | token | exile | divided | sacrifice | continuous | shield
    text: str
    amount: int = 0
    toughness: int = 0
    target: str | None = None  # "any" | "creature" | "player" | "spell": a targeted effect
    scope: str = "you"  # untargeted: "you" | "each opponent" | "each player" | "each creature"
    mana: tuple[tuple[str, int], ...] = ()
    until: str = "end of turn"
    delayed: TriggerCondition | None = None
    then: tuple[Effect, ...] = ()
    counter: str = ""  # counters: "+1/+1" | "-1/-1"; token: the token's name
    keywords: frozenset[str] = frozenset()  # token: its keyword abilities; pump: those gained
    power: int = 0  # token: its power (``toughness`` is its toughness)
    #: continuous, shield: the LayerSpec or ReplacementSpec of kb.engine.layer_text
    spec: Any = None


_NUM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def _number(text: str, what: str = "amount", limit: int = MAX_NUMBER) -> int:
    """A count written as a word (``two``) or digits, within ``limit`` (:mod:`kb.engine.limits`)."""
    text = text.strip().lower()
    if text in _NUM_WORDS:
        return _NUM_WORDS[text]
    return bounded(text, what, limit, CardError)


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
    (re.compile(r"^target player loses (\w+) life$"), "target loses"),
    (re.compile(r"^that player draws (\w+)(?: cards?)?$"), "that draws"),
    (re.compile(r"^(?:you )?draws? (\w+)(?: cards?)?$"), "draw"),
    (re.compile(r"^(?:you )?discards? (\w+)(?: cards?)?$"), "discard"),
    (re.compile(r"^add ((?:\{[^}]*\})+)$"), "add"),
    (re.compile(r"^counter target spell$"), "counter"),
    (re.compile(r"^destroy target creature$"), "destroy"),
    (re.compile(r"^(?:you )?sacrifices? a creature$"), "sacrifice"),
    (
        re.compile(r"^(target player|each opponent|each player) sacrifices a creature$"),
        "sacrifice others",
    ),
    (re.compile(r"^target creature gets ([+-]\d+)/([+-]\d+)(?: until (.+))?$"), "pump"),
    (re.compile(r"^target creature gains ([a-z ]+?) until (end of turn|end of combat)$"), "gains"),
    (
        re.compile(
            r"^put (\w+) ([+-]1/[+-]1) counters? on (target creature|each creature you control)$"
        ),
        "counters",
    ),
    (re.compile(r"^(target player|each opponent) gets? (\w+) poison counters?$"), "poison"),
    (
        re.compile(r"^create (\w+) (\d+)/(\d+) ([a-z][a-z ]*?) creature tokens?(?: with (.+))?$"),
        "token",
    ),
    (re.compile(r"^exile target creature$"), "exile"),
    (re.compile(r"^return target creature to its owner's hand$"), "bounce"),
    (re.compile(r"^(scry|surveil) (\w+)$"), "look"),
    (
        re.compile(
            r"^copy target (instant or sorcery )?spell(, you may choose new targets for the copy)?$"
        ),
        "copy",
    ),
    (
        re.compile(r"^deals? (\w+) damage divided as you choose among one or two targets$"),
        "divided",
    ),
]


_STOPPABLE = re.compile(
    r"^at the beginning of your next (.+?)(?: step)?[:,] deal (\w+) damage to that player unless "
    r"they pay ((?:\{[^}]*\})+) before that step$"
)

_BLINK = re.compile(
    r"^exile target creature( you control)?,? then return (?:it|that card) to the battlefield "
    r"under (its owner's|your) control$"
)

_TARGETS = {
    "any target": "any",
    "target creature": "creature",
    "target player": "player",
}


def parse_effects(text: str) -> tuple[Effect, ...]:
    """Parse ``deal 3 damage to any target and gain 3 life`` into effects (608.2c order)."""
    text = " ".join(text.strip().rstrip(".").split())
    try:
        whole = parse_whole_effect(text)
    except LayerTextError as err:
        raise CardError(str(err)) from None
    if whole is not None:  # continuous, replacement and prevention effects (611-615)
        kind, spec, target = whole
        return (Effect(kind, text, target=target, spec=spec),)
    delayed = re.match(
        r"^at the beginning of the next (.+?)(?: step| phase)?[:,] (.+)$", text, re.I
    )
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
    quench = _STOPPABLE.match(text.lower())
    if quench:  # 116.2c: a delayed ability the damaged player may pay to stop
        step = parse_step(quench.group(1))
        if step is None:
            raise CardError(f"unknown step {quench.group(1)!r}")
        cond = TriggerCondition(
            step=step, whose="your next", text=f"at the beginning of your next {step.label}"
        )
        try:
            parse_cost(quench.group(3))
        except ManaError as err:
            raise CardError(str(err)) from None
        amount = _number(quench.group(2))
        damage = Effect("damage", text, amount=amount, scope="that player")
        # ``counter`` holds the cost that stops it
        stop = Effect("delayed", text, delayed=cond, then=(damage,), counter=quench.group(3))
        return (replace(stop, scope="stoppable"),)
    blink = _BLINK.match(text.lower())
    if blink:  # one instruction: the card exiled is the one returned (111.8 for a token)
        target = "yours" if blink.group(1) else "creature"
        scope = "you" if blink.group(2) == "your" else "owner"
        return (Effect("blink", text, target=target, scope=scope),)
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
        if kind == "target loses":
            return Effect("lose", text, amount=_number(m.group(1)), target="player")
        if kind == "that draws":  # the player whose step it is (a trigger of each player's step)
            amount = _number(m.group(1), "draw", MAX_REPEAT)
            return Effect("draw", text, amount=amount, scope="that player")
        if kind in ("gain", "lose"):
            return Effect(kind, text, amount=_number(m.group(1)))
        if kind in ("draw", "discard"):  # done card by card: a smaller bound
            return Effect(kind, text, amount=_number(m.group(1), kind, MAX_REPEAT))
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
        if kind == "gains":  # a keyword until some point (611.2a), kept with +0/+0 effects
            if m.group(1) not in KEYWORDS:
                raise CardError(f"unknown keyword {m.group(1)!r}")
            return Effect(
                "pump",
                text,
                target="creature",
                until=m.group(2),
                keywords=frozenset({m.group(1)}),
            )
        if kind == "sacrifice":  # 701.21a: the player chooses one they control as it resolves
            return Effect("sacrifice", text)
        if kind == "sacrifice others":
            if m.group(1) == "target player":
                return Effect("sacrifice", text, target="player", scope="target")
            return Effect("sacrifice", text, scope=m.group(1))
        if kind == "counters":
            scope = "target" if m.group(3) == "target creature" else "each creature you control"
            return Effect(
                "counters",
                text,
                amount=_number(m.group(1)),
                counter=m.group(2),
                target="creature" if scope == "target" else None,
                scope=scope,
            )
        if kind == "poison":
            if m.group(1) == "target player":
                return Effect("poison", text, amount=_number(m.group(2)), target="player")
            return Effect("poison", text, amount=_number(m.group(2)), scope="each opponent")
        if kind == "token":
            words = m.group(4).strip()
            kws = frozenset(k.strip() for k in re.split(r",? and |, ", m.group(5) or "") if k)
            unknown = sorted(k for k in kws if k not in KEYWORDS)
            if unknown:
                raise CardError(f"unknown keyword {unknown[0]!r} for a token")
            return Effect(
                "token",
                text,
                amount=_number(m.group(1), "tokens", MAX_REPEAT),
                toughness=_number(m.group(3), "toughness"),
                counter=" ".join(w.capitalize() for w in words.split()) + " Token",
                keywords=kws,
                power=_number(m.group(2), "power"),
            )
        if kind == "exile":
            return Effect("exile", text, target="creature")
        if kind == "look":
            return Effect(m.group(1), text, amount=_number(m.group(2), m.group(1), MAX_REPEAT))
        if kind == "bounce":
            return Effect("bounce", text, target="creature")
        if kind == "copy":
            target = "instant or sorcery" if m.group(1) else "spell"
            return Effect("copy", text, target=target, scope="new" if m.group(2) else "same")
        if kind == "divided":
            return Effect("divided", text, amount=_number(m.group(1)), target="any")
        if kind == "pump":
            until = (m.group(3) or "end of turn").strip()
            if until not in ("end of turn", "end of combat") and not until.startswith("your next "):
                raise CardError(f"unknown duration 'until {until}'")
            if until.startswith("your next ") and parse_step(until[10:]) is None:
                raise CardError(f"unknown step in 'until {until}'")
            return Effect(
                "pump",
                text,
                amount=_number(m.group(1), "power"),
                toughness=_number(m.group(2), "toughness"),
                target="creature",
                until=until,
            )
    raise CardError(
        f"unknown effect {text!r} (known: deal N damage to any target/target creature/target "
        "player/each opponent/each player, gain/lose N life, each opponent (or target player) loses N "
        "life, draw N, that player draws N (at the beginning of each player's <step>), "
        "discard N, add {mana}, counter target spell, destroy target creature, [target player | "
        "each opponent | each player] sacrifice(s) a creature, exile target creature, target "
        "creature gets +N/+N (or gains <keyword>) until end of turn, put N +1/+1 (or -1/-1) counters on target creature "
        "(or each creature you control), target player (or each opponent) gets N poison counters, "
        "create N P/T <name> creature tokens [with <keywords>], deal N damage divided as you "
        "choose among one or two targets, at the beginning of the next <step>: <effect>, exile "
        "target creature [you control], then return it to the battlefield under its owner's "
        "(your) control, return target creature to its owner's hand, copy target spell[, you "
        "may choose new targets for the copy] (or target instant or sorcery spell), scry N, "
        "surveil N; and the continuous, replacement and prevention effects of "
        "kb.engine.layer_text: target creature loses all abilities and becomes a <color> <type> "
        "with base power and toughness N/N [until end of turn], gain control of target creature "
        "[until end of turn | for as long as you control this], switch target creature's power "
        "and toughness [until end of turn], target creature becomes N/N until end of turn, "
        "prevent the next N damage that would be dealt to any target this turn, prevent all "
        "combat damage that would be dealt this turn, regenerate target creature (or this "
        "creature), if that creature would die this turn, exile it instead)"
    )
