"""The card language of triggered abilities (603): ``trigger <condition>: <effect>``.

``at the beginning of your upkeep: …``, ``whenever a creature enters: …``, with an intervening
``, if this is untapped`` (603.4); :mod:`kb.engine.cards` reads the rest of a definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.engine.effect_text import CardError, Effect, TriggerCondition, parse_effects
from kb.engine.steps import parse_step

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
    "a creature you control dies": "your creature dies",
    "this creature dies": "self dies",
}


@dataclass(frozen=True, slots=True)
class TriggeredAbility:
    """A triggered ability ``trigger <condition>: <effect>`` (603.1)."""

    condition: TriggerCondition
    effects: tuple[Effect, ...]
    text: str


_UNTAPPED = re.compile(r",? if (.+?) is untapped$")
_THIS = (
    "this",
    "this artifact",
    "this creature",
    "this enchantment",
    "this land",
    "this permanent",
)


def parse_trigger(text: str, name: str = "") -> TriggeredAbility:
    """Parse ``at the beginning of your upkeep: …`` or ``whenever a creature enters: …``, with
    an intervening ``, if this is untapped`` (603.4; ``this`` or the card's ``name``) and, for
    ``at the beginning of each player's <step>``, ``that player`` naming the player whose step
    it is (Howling Mine)."""
    head, sep, body = text.partition(":")
    if not sep:
        raise CardError(f"a trigger needs ': <effect>' after its condition: {text!r}")
    head = " ".join(head.lower().replace("’", "'").split())
    effects = parse_effects(body)
    untapped = False
    said = head  # the condition as the trace tells it, with its "if" clause
    if m := _UNTAPPED.search(head):
        if m.group(1) not in (*_THIS, name.lower()):
            raise CardError(
                f"'if {m.group(1)} is untapped': name this card ('if this is untapped')"
            )
        untapped = True
        head = head[: m.start()]
    that_player = any(e.scope == "that player" for e in effects)
    m = re.match(r"^at the beginning of (each player's|your|each|the) (.+)$", head)
    if m:
        step = parse_step(m.group(2))
        if step is None:
            raise CardError(f"unknown step {m.group(2)!r} in trigger")
        if that_player and m.group(1) != "each player's":
            raise CardError(
                "'that player' is the player whose step it is: 'at the beginning of each "
                "player's <step>'"
            )
        whose = "your" if m.group(1) == "your" else "each"
        cond = TriggerCondition(step=step, whose=whose, text=said, if_untapped=untapped)
        return TriggeredAbility(cond, effects, text)
    m = re.match(r"^whenever (.+)$", head)
    if m and m.group(1) in TRIGGER_EVENTS:
        if that_player:
            raise CardError("'that player' follows 'at the beginning of each player's <step>'")
        cond = TriggerCondition(event=TRIGGER_EVENTS[m.group(1)], text=said, if_untapped=untapped)
        return TriggeredAbility(cond, effects, text)
    raise CardError(
        f"unknown trigger condition {head!r} (known: at the beginning of your/each/each "
        f"player's <step>; whenever {', '.join(TRIGGER_EVENTS)}; then optionally ', if this is "
        "untapped')"
    )
