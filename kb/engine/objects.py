"""The things a game is made of: players, objects, stack items, events, actions (rules 1xx-4xx).

These are plain data; :class:`kb.engine.game.Game` and its parts change them. Every change is
recorded as an :class:`Event` naming the rules that justify it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kb.engine.cards import CardDef, Effect
from kb.engine.copy_text import CopyValue
from kb.engine.effect_text import TriggerCondition
from kb.engine.mana import ManaCost, ManaPool
from kb.engine.steps import Step

MAX_HAND_SIZE = 7  # 402.2

MORPH_COST = ManaCost(3)  # 702.37c

SHORTCUTS = {
    "go": Step.END,
    "your turn": Step.END,
    "combat?": Step.BEGINNING_OF_COMBAT,
    "attacks?": Step.BEGINNING_OF_COMBAT,
    "no attacks": Step.END_OF_COMBAT,
}


class IllegalAction(Exception):
    """An action the rules do not allow now; ``rules`` are the rule numbers it breaks."""

    def __init__(self, message: str, *rules: str) -> None:
        super().__init__(message)
        self.message = message
        self.rules = list(dict.fromkeys(rules))


class ScenarioError(ValueError):
    """A setup or reference the game cannot make sense of (unknown card, player, step)."""


@dataclass(slots=True)
class Event:
    """One thing that happened, with the rules that justify it."""

    seq: int
    kind: str
    text: str
    rules: list[str]
    player: str | None
    turn: int
    active: str | None
    step: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data."""
        out = {
            "seq": self.seq,
            "kind": self.kind,
            "player": self.player,
            "text": self.text,
            "rules": list(self.rules),
            "turn": self.turn,
            "active": self.active,
            "step": self.step,
        }
        out.update(self.data)
        return out

    def line(self) -> str:
        """The event as one line of text: ``12. [Alice 2 upkeep] text (117.3a)``."""
        where = f"{self.active or '-'} {self.turn} {self.step}" if self.step else "setup"
        rules = f" ({', '.join(self.rules)})" if self.rules else ""
        return f"{self.seq:>4}. [{where}] {self.text}{rules}"


@dataclass(slots=True, eq=False)
class Modifier:
    """A continuous effect on one creature: +N/+N, or keywords it gains, until some point
    (611.2a)."""

    power: int
    toughness: int
    until: str  # "end of turn" | "end of combat" | "your next <step>"
    step: Step | None = None
    player: int | None = None
    keywords: frozenset[str] = frozenset()  # "gains hexproof until end of turn"
    stamp: int = 0  # its timestamp (613.7b): an ability-removing effect after it removes keywords


@dataclass(slots=True, eq=False)
class GameObject:
    """A card in a zone, or a permanent on the battlefield (a new object per zone, 400.7)."""

    id: int
    card: CardDef
    owner: int
    controller: int
    tapped: bool = False
    damage: int = 0
    deathtouch_damage: bool = False
    sick: bool = False  # not controlled continuously since its controller's turn began (302.6)
    face_down: bool = False
    attacking: int | None = None  # the defending player (508.1b)
    attacking_planeswalker: int | None = None  # the id of the planeswalker it attacks
    blocking: int | None = None
    also_blocking: tuple[int, ...] = ()  # further attackers it blocks (509.1a, 510.1d)
    blocked: bool = False
    struck_first: bool = False
    modifiers: list[Modifier] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)  # "+1/+1", "-1/-1", "loyalty", "time"
    attached_to: int | None = None  # the id of the permanent an Aura or Equipment is attached to
    token: bool = False  # 111.1
    loyalty_turn: int = 0  # the turn its last loyalty ability was activated (606.3)
    exiled_turn: int = 0  # foretold or plotted: the turn it was exiled (702.143, 702.170)
    exiled_as: str = ""  # "foretold" | "plotted" | "suspended" | "" (a card in exile)
    granted: frozenset[str] = frozenset()  # keywords an effect gave it (suspend's haste)
    copy: bool = False  # a copy of a card (707.10): it ceases to exist off the stack (704.5e)
    unlocked: bool = False  # a Room's door (its second half) is unlocked (709.5c)
    named: str = ""  # a conspiracy's hidden agenda: the card name it names (702.106)
    #: the card as printed, when ``card`` holds what continuous effects made of it (613.1)
    printed: CardDef | None = None
    #: the copy effect it entered with (707.5): its copiable values (707.2, 707.3), what a copy
    #: of it copies; applied in layer 1 as long as it is on the battlefield
    copied: CopyValue | None = None
    #: its timestamp when not its id: a new one each time it becomes attached (613.7e)
    stamp: int = 0

    @property
    def name(self) -> str:
        """The card's name (a face-down object has none, 708.2; the trace adds its identity)."""
        return self.card.name

    @property
    def label(self) -> str:
        """How the trace shows it."""
        if self.copy:
            return f"{self.card.name} (copy)"
        if self.copied is not None and self.printed is not None and not self.face_down:
            return f"{self.card.name} ({self.printed.name})"  # Clone copying Grizzly Bears
        return f"{self.card.name} (face down)" if self.face_down else self.card.name


class Battlefield(list[GameObject]):
    """The battlefield's permanents in the order they arrived, indexed by id and by controller:
    an object is found by id, and a player's permanents are listed, without reading them all.
    Only ``append`` and ``remove`` change it (the index follows them); a new battlefield is a
    new ``Battlefield``. A permanent's id never changes while it is here, nor its controller
    except through ``recontrol`` (a control-changing effect).

    It also keeps the permanents state-based actions must look at (:meth:`watched`): those a
    check of 704.5 applies to (``CardDef.sba_class``), face down or with counters or damage as
    they arrive, and any given counters or damage later (:meth:`watch`, called wherever they
    are put).
    Every creature and planeswalker is among them (``sba_class`` is never 0 for them), so
    target options read this list instead of the whole battlefield."""

    __slots__ = ("_ids", "_mine", "_watch", "_watched")

    def __init__(self, objs: Iterable[GameObject] = ()) -> None:
        super().__init__(objs)
        self._ids = {o.id: o for o in self}
        self._mine: dict[int, list[GameObject]] = {}
        for o in self:
            self._mine.setdefault(o.controller, []).append(o)
        self._watched = {o.id for o in self if _needs_checks(o)}
        self._watch = [o for o in self if o.id in self._watched]

    def append(self, obj: GameObject) -> None:
        """A permanent arrives (the newest last)."""
        list.append(self, obj)
        self._ids[obj.id] = obj
        self._mine.setdefault(obj.controller, []).append(obj)
        if _needs_checks(obj):
            self._watched.add(obj.id)
            self._watch.append(obj)

    def remove(self, obj: GameObject) -> None:
        """A permanent leaves."""
        list.remove(self, obj)
        del self._ids[obj.id]
        self._mine[obj.controller].remove(obj)
        if obj.id in self._watched:
            self._watched.discard(obj.id)
            self._watch.remove(obj)

    def recontrol(self, obj: GameObject, p: int) -> None:
        """A control-changing effect (613.1b) gives the permanent to player ``p``."""
        old = obj.controller
        obj.controller = p
        self._mine[old] = [o for o in self if o.controller == old]
        self._mine[p] = [o for o in self if o.controller == p]

    def watch(self, obj: GameObject) -> None:
        """State-based actions look at this permanent from now on (counters were put on it)."""
        if obj.id not in self._watched and self._ids.get(obj.id) is obj:
            self._watched.add(obj.id)
            self._watch = [o for o in self if o.id in self._watched]  # battlefield order

    def watched(self) -> list[GameObject]:
        """The permanents state-based actions look at, in battlefield order (do not change it);
        on every other one no check of 704.5 can apply."""
        return self._watch

    def get(self, oid: int) -> GameObject | None:
        """The permanent with this id, or None."""
        return self._ids.get(oid)

    def of(self, p: int) -> list[GameObject]:
        """The permanents player ``p`` controls, in battlefield order (do not change the list)."""
        return self._mine.get(p, _NONE)

    def __contains__(self, obj: object) -> bool:
        return isinstance(obj, GameObject) and self._ids.get(obj.id) is obj

    def __deepcopy__(self, memo: dict[int, Any]) -> Battlefield:
        return Battlefield(copy.deepcopy(list(self), memo))

    def __reduce__(self) -> tuple[Any, ...]:
        return Battlefield, (list(self),)

    def _unindexed(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("the battlefield changes by append and remove only (its index follows)")

    insert = extend = pop = clear = sort = reverse = _unindexed
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _unindexed


_NONE: list[GameObject] = []


def _needs_checks(obj: GameObject) -> bool:
    """Whether a check of 704.5 may apply to this permanent as it arrives."""
    return bool(obj.card.sba_class or obj.face_down or obj.counters or obj.damage)


@dataclass(slots=True, eq=False)
class StackObject:
    """A spell or an ability on the stack (405.1)."""

    id: int
    kind: str  # "spell" | "activated ability" | "triggered ability"
    name: str
    controller: int
    effects: tuple[Effect, ...]
    targets: list[tuple[str, int]]  # ("player", index) | ("object", id)
    card: GameObject | None = None
    face_down: bool = False
    source: GameObject | None = None  # the permanent whose ability this is (its last known state)
    division: tuple[int, ...] = ()  # the damage each target gets, announced on casting (601.2d)
    haste: bool = False  # cast with suspend: the creature gains haste (702.62a)
    origin: GameObject | None = None  # a triggered ability's source permanent (113.7a)
    copy: bool = False  # a copy of a spell (707.10)
    if_untapped: bool = False  # "if this is untapped", checked again on resolution (603.4)

    @property
    def keywords(self) -> frozenset[str]:
        """The keywords of the damage source: the spell's card, or the ability's permanent."""
        if self.card is not None and not self.face_down:
            return self.card.card.keywords
        if self.source is not None:
            return self.source.card.keywords
        return frozenset()

    @property
    def split_second(self) -> bool:
        """A spell with split second (702.61a)."""
        return (
            self.kind == "spell"
            and self.card is not None
            and not self.face_down
            and "split second" in self.card.card.keywords
        )


@dataclass(slots=True, eq=False)
class PendingTrigger:
    """A triggered ability waiting to be put on the stack (603.3)."""

    controller: int
    source: str
    effects: tuple[Effect, ...]
    condition: str
    origin: GameObject | None = None  # the permanent whose ability triggered (113.7)
    if_untapped: bool = False  # an intervening "if this is untapped" (603.4)


@dataclass(slots=True, eq=False)
class DelayedTrigger:
    """A delayed triggered ability created by a resolving spell or ability (603.7)."""

    controller: int
    source: str
    condition: TriggerCondition
    effects: tuple[Effect, ...]
    stop_cost: ManaCost | None = None  # a player may pay this to stop it (116.2c)
    stopper: int | None = None  # the player who may (None: any player)


@dataclass(slots=True)
class Player:
    """A player: life, zones, mana pool and whether they are still in the game."""

    name: str
    index: int
    life: int = 20
    hand: list[GameObject] = field(default_factory=list)
    library: list[GameObject] = field(default_factory=list)  # top of library is the end
    graveyard: list[GameObject] = field(default_factory=list)
    pool: ManaPool = field(default_factory=ManaPool)
    in_game: bool = True
    lost: bool = False
    drew_from_empty: bool = False
    lands_played: int = 0
    poison: int = 0  # poison counters (122.1f, 704.5c)
    exile: list[GameObject] = field(default_factory=list)  # the exile zone's cards it owns (406)
    companion: GameObject | None = None  # a chosen companion outside the game (702.139)
    companion_used: bool = False


@dataclass(slots=True, unsafe_hash=True)
class Action:
    """Something a player does. ``card`` and targets are names (``"Bob's Forest"``) or ids.
    Treated as a value (hashable, never changed once made); not ``frozen`` only because frozen
    dataclasses are slow to create, and legal-action listing creates many."""

    kind: str  # pass | cast | activate | mana | play_land | turn_face_up | attack | block
    # | discard | order_triggers | concede | hold | shortcut
    player: str
    card: str | int | None = None
    targets: tuple[str | tuple[str, int], ...] = ()
    ability: int | None = None
    mana: str = ""
    face_down: bool = False
    attackers: tuple[tuple[str | int, str | int | None], ...] = ()
    blocks: tuple[tuple[str | int, str | int], ...] = ()
    names: tuple[str, ...] = ()
    phrase: str = ""
    mode: int | None = None  # the chosen mode of a modal spell, from 1 (700.2a)
    division: tuple[int, ...] = ()  # damage divided among the targets, in order (601.2d)
    zone: str = "hand"  # where a spell is cast from: "hand" | "exile" (foretold, plotted)
    #: combat damage divided by attackers (510.1c): (attacker, ((recipient, amount), ...)), ...
    assignment: tuple[tuple[Any, tuple[tuple[Any, int], ...]], ...] = ()
    group: tuple[Action, ...] = ()  # a group of objects added to the stack (MTR 4.2)

    def describe(self) -> str:
        """A short human description (for messages and the property tests)."""
        bits = [self.player, self.kind]
        if self.card is not None:
            bits.append(str(self.card))
        if self.targets:
            bits.append("-> " + ", ".join(str(t) for t in self.targets))
        if self.attackers:
            bits.append(", ".join(str(a) for a, _ in self.attackers))
        if self.blocks:
            bits.append(", ".join(f"{b} blocks {a}" for b, a in self.blocks))
        if self.phrase:
            bits.append(repr(self.phrase))
        if self.group:
            bits.append("[" + "; ".join(a.describe() for a in self.group) + "]")
        for attacker, parts in self.assignment:
            bits.append(f"{attacker}: " + ", ".join(f"{n} to {r}" for r, n in parts))
        return " ".join(bits)


@dataclass(slots=True)
class Shortcut:
    """A tournament shortcut in progress (MTR 4.2): passes until an opponent has priority."""

    phrase: str
    player: int
    turn: int
    stop: Step
    until: int | None = None  # stop when this player has priority (an interruption)


def cite(*numbers: str) -> list[str]:
    return list(numbers)


@dataclass(slots=True)
class CastPlan:
    """A validated spell: what 601.2 moves, targets and pays once the game changes."""

    card: GameObject
    effects: tuple[Effect, ...]
    cost: ManaCost
    targets: list[tuple[str, int]]
    payment: list[tuple[GameObject, int]]
    face_down: bool
    division: tuple[int, ...] = ()
    zone: str = "hand"


@dataclass(slots=True)
class ActivatePlan:
    """A validated activated ability (602.2) of ``obj``: its index, targets and payment."""

    obj: GameObject
    index: int
    targets: list[tuple[str, int]]
    payment: list[tuple[GameObject, int]]


@dataclass(slots=True)
class ManaPlan:
    """A validated mana ability (605.3a) of ``obj``."""

    obj: GameObject
    index: int


@dataclass(slots=True)
class ManaCostPlan:
    """A validated special action on ``obj`` and the mana abilities that pay for it."""

    obj: GameObject
    payment: list[tuple[GameObject, int]]


TARGET_WORDS = {
    "any": "any target (a creature, player or planeswalker)",
    "creature": "a target creature",
    "player": "a target player",
    "spell": "a target spell",
    "instant or sorcery": "a target instant or sorcery spell",
    "yours": "a target creature you control",
    "permanent": "a target permanent",
}


AWAITING = {
    "defender": "chooses the defending player",
    "attackers": "declares attackers",
    "blockers": "declares blockers",
    "discard": "discards down to the maximum hand size",
    "damage": "announces how combat damage is assigned",
}


AWAITING_RULE = {
    "attackers": "508.1",
    "blockers": "509.1",
    "discard": "514.1",
    "defender": "506.2a",
    "damage": "510.1",
}


PRIORITY_RULE = {
    Step.UPKEEP: "503.1",
    Step.DRAW: "504.2",
    Step.PRECOMBAT_MAIN: "505.6",
    Step.POSTCOMBAT_MAIN: "505.6",
    Step.BEGINNING_OF_COMBAT: "507.2",
    Step.FIRST_STRIKE_DAMAGE: "510.3",
    Step.COMBAT_DAMAGE: "510.3",
    Step.END_OF_COMBAT: "511.1",
    Step.END: "513.1",
}
