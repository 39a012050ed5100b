"""The steps and phases of a turn (500–514), named as the rules name them."""

from __future__ import annotations

from enum import Enum


class Step(Enum):
    """A step, or a main phase (a phase without steps), in turn order (500.1)."""

    UNTAP = "untap"
    UPKEEP = "upkeep"
    DRAW = "draw"
    PRECOMBAT_MAIN = "precombat main"
    BEGINNING_OF_COMBAT = "beginning of combat"
    DECLARE_ATTACKERS = "declare attackers"
    DECLARE_BLOCKERS = "declare blockers"
    FIRST_STRIKE_DAMAGE = "first-strike damage"
    COMBAT_DAMAGE = "combat damage"
    END_OF_COMBAT = "end of combat"
    POSTCOMBAT_MAIN = "postcombat main"
    END = "end"
    CLEANUP = "cleanup"

    # Set on each member once, below: the engine asks them at every action, and a plain
    # attribute is several times faster than a property looking a table up by the member.
    label: str  # how the trace names it: "upkeep step", "precombat main phase"
    is_main: bool  # a main phase (505)
    order: int  # position in the turn
    rule: str  # the rule that describes this step or phase

    # Members are singletons compared by identity: hashing by identity (in C) gives the same
    # dictionaries as Enum's hash of the name, faster.
    __hash__ = object.__hash__


_ORDER = {step: i for i, step in enumerate(Step)}
_MAIN = frozenset((Step.PRECOMBAT_MAIN, Step.POSTCOMBAT_MAIN))
#: computed once: the trace names steps in every event
_LABELS = {s: s.value + (" phase" if s in _MAIN else " step") for s in Step}
_RULES = {
    Step.UNTAP: "502",
    Step.UPKEEP: "503",
    Step.DRAW: "504",
    Step.PRECOMBAT_MAIN: "505",
    Step.BEGINNING_OF_COMBAT: "507",
    Step.DECLARE_ATTACKERS: "508",
    Step.DECLARE_BLOCKERS: "509",
    Step.FIRST_STRIKE_DAMAGE: "510.4",
    Step.COMBAT_DAMAGE: "510",
    Step.END_OF_COMBAT: "511",
    Step.POSTCOMBAT_MAIN: "505",
    Step.END: "513",
    Step.CLEANUP: "514",
}

_ALIASES = {
    "main": Step.PRECOMBAT_MAIN,
    "main 1": Step.PRECOMBAT_MAIN,
    "first main": Step.PRECOMBAT_MAIN,
    "precombat main": Step.PRECOMBAT_MAIN,
    "main 2": Step.POSTCOMBAT_MAIN,
    "second main": Step.POSTCOMBAT_MAIN,
    "postcombat main": Step.POSTCOMBAT_MAIN,
    "combat": Step.BEGINNING_OF_COMBAT,
    "beginning of combat": Step.BEGINNING_OF_COMBAT,
    "first strike damage": Step.FIRST_STRIKE_DAMAGE,
    "first-strike combat damage": Step.FIRST_STRIKE_DAMAGE,
    "first strike combat damage": Step.FIRST_STRIKE_DAMAGE,
    "end of turn": Step.END,
    "ending": Step.END,
}


def parse_step(text: str) -> Step | None:
    """A step from its name ("upkeep", "precombat main phase", "end step"), or None."""
    name = " ".join(text.lower().replace("’", "'").split())
    name = name.removeprefix("the ")
    for suffix in (" step", " phase"):
        name = name.removesuffix(suffix)
    if name in _ALIASES:
        return _ALIASES[name]
    for step in Step:
        if step.value == name:
            return step
    return None


STEP_NAMES = sorted({s.value for s in Step} | set(_ALIASES), key=len, reverse=True)


for _step in Step:
    object.__setattr__(_step, "label", _LABELS[_step])
    object.__setattr__(_step, "is_main", _step in _MAIN)
    object.__setattr__(_step, "order", _ORDER[_step])
    object.__setattr__(_step, "rule", _RULES[_step])
