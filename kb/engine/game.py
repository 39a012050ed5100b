"""The game: players, turns, priority, the stack, state-based actions and triggers.

A :class:`Game` is a deterministic state machine. Every change happens through
:meth:`Game.perform` (an :class:`Action` by a player) or the automatic processes the rules
describe (turn-based actions, state-based actions, triggered abilities); each records
:class:`Event` objects that name the rules justifying them. An illegal action is rejected with
a message citing a rule, and leaves the state unchanged: checks run before any change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.engine.cards import LIBRARY_CARD, CardDef, CardPool, Effect, TriggerCondition
from kb.engine.mana import ManaCost, ManaError, ManaPool, format_mana, parse_mana
from kb.engine.steps import Step, parse_step

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
    """A continuous effect on one creature: +N/+N until some point (611.2a)."""

    power: int
    toughness: int
    until: str  # "end of turn" | "end of combat" | "your next <step>"
    step: Step | None = None
    player: int | None = None


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
    attacking: int | None = None
    blocking: int | None = None
    blocked: bool = False
    struck_first: bool = False
    modifiers: list[Modifier] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The card's name (a face-down object has none, 708.2; the trace adds its identity)."""
        return self.card.name

    @property
    def label(self) -> str:
        """How the trace shows it."""
        return f"{self.card.name} (face down)" if self.face_down else self.card.name


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


@dataclass(slots=True, eq=False)
class DelayedTrigger:
    """A delayed triggered ability created by a resolving spell or ability (603.7)."""

    controller: int
    source: str
    condition: TriggerCondition
    effects: tuple[Effect, ...]


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


@dataclass(frozen=True, slots=True)
class Action:
    """Something a player does. ``card`` and targets are names (``"Bob's Forest"``) or ids."""

    kind: str  # pass | cast | activate | mana | play_land | turn_face_up | attack | block
    # | discard | order_triggers | concede | hold | shortcut
    player: str
    card: str | int | None = None
    targets: tuple[str | tuple[str, int], ...] = ()
    ability: int | None = None
    mana: str = ""
    face_down: bool = False
    attackers: tuple[tuple[str | int, str | None], ...] = ()
    blocks: tuple[tuple[str | int, str | int], ...] = ()
    names: tuple[str, ...] = ()
    phrase: str = ""

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
        return " ".join(bits)


@dataclass(slots=True)
class Shortcut:
    """A tournament shortcut in progress (MTR 4.2): passes until an opponent has priority."""

    phrase: str
    player: int
    turn: int
    stop: Step


def _rules(*numbers: str) -> list[str]:
    return list(numbers)


class Game:
    """One game of two to four players (800.1 for three or more)."""

    def __init__(self, players: list[str], pool: CardPool, mode: str = "strict") -> None:
        if not 2 <= len(players) <= 4:
            raise ScenarioError(f"a game has 2 to 4 players, not {len(players)}")
        if len({p.lower() for p in players}) != len(players):
            raise ScenarioError("two players have the same name")
        if mode not in ("strict", "tournament"):
            raise ScenarioError(f"mode is 'strict' or 'tournament', not {mode!r}")
        self.pool = pool
        self.mode = mode
        self.players = [Player(name, i) for i, name in enumerate(players)]
        self.battlefield: list[GameObject] = []
        self.stack: list[StackObject] = []
        self.active = 0
        self.starting_player = 0
        self.turn = 0
        self.step = Step.UNTAP
        self.priority: int | None = None
        self.passes = 0
        self.awaiting: tuple[str, int, int] | None = None  # (declaration, player, count)
        self.blockers_pending: list[int] = []
        self.pending: list[PendingTrigger] = []
        self.delayed: list[DelayedTrigger] = []
        self.trigger_order: dict[int, list[str]] = {}
        self.holding: set[int] = set()
        self.shortcut: Shortcut | None = None
        self.cleanup_again = False
        self.first_strike_step_done = False
        self.game_over = False
        self.winner: int | None = None
        self.started = False
        self.events: list[Event] = []
        self.actions_taken = 0
        self._next_id = 1

    # ---- players and objects ----------------------------------------------------------------
    def player(self, name: str) -> Player:
        """A player by name (case-insensitive)."""
        for p in self.players:
            if p.name.lower() == name.strip().lower():
                return p
        raise ScenarioError(
            f"no player named {name!r} (players: {', '.join(p.name for p in self.players)})"
        )

    def _new_object(self, card: CardDef, owner: int) -> GameObject:
        obj = GameObject(self._next_id, card, owner, owner)
        self._next_id += 1
        return obj

    def _card(self, name: str) -> CardDef:
        card = self.pool.get(name)
        if card is None:
            if name.strip().lower() == "card":
                return LIBRARY_CARD
            raise ScenarioError(
                f"unknown card {name!r} (not in cards.toml nor defined with 'card')"
            )
        return card

    def in_game(self) -> list[Player]:
        """Players still in the game, in turn order."""
        return [p for p in self.players if p.in_game]

    def _next_in_game(self, index: int) -> int:
        n = len(self.players)
        for k in range(1, n + 1):
            candidate = (index + k) % n
            if self.players[candidate].in_game:
                return candidate
        return index

    def apnap(self) -> list[int]:
        """Players in APNAP order (101.4): the active player, then the others in turn order."""
        n = len(self.players)
        return [
            (self.active + k) % n for k in range(n) if self.players[(self.active + k) % n].in_game
        ]

    def opponents(self, index: int) -> list[int]:
        """Opponents still in the game, in turn order after the player (102.2, 102.3)."""
        n = len(self.players)
        return [(index + k) % n for k in range(1, n) if self.players[(index + k) % n].in_game]

    # ---- characteristics --------------------------------------------------------------------
    def has(self, obj: GameObject, keyword: str) -> bool:
        """Whether a permanent has a keyword (a face-down permanent has no abilities, 708.2)."""
        return not obj.face_down and keyword in obj.card.keywords

    def is_creature(self, obj: GameObject) -> bool:
        """Whether a permanent is a creature (face-down permanents are 2/2 creatures, 708.2a)."""
        return obj.face_down or obj.card.is_a("creature")

    def power(self, obj: GameObject) -> int:
        """Power after modifiers and static abilities (613.4c)."""
        base = 2 if obj.face_down else obj.card.power or 0
        return base + sum(m.power for m in obj.modifiers) + self._anthem(obj)[0]

    def toughness(self, obj: GameObject) -> int:
        """Toughness after modifiers and static abilities (613.4c)."""
        base = 2 if obj.face_down else obj.card.toughness or 0
        return base + sum(m.toughness for m in obj.modifiers) + self._anthem(obj)[1]

    def _anthem(self, obj: GameObject) -> tuple[int, int]:
        p = t = 0
        for other in self.battlefield:
            if other.card.anthem and not other.face_down and other.controller == obj.controller:
                p += other.card.anthem[0]
                t += other.card.anthem[1]
        return p, t

    def _mana_ability(self, obj: GameObject, mana: dict[str, int] | None = None) -> int | None:
        if obj.face_down:
            return None
        for i, ability in enumerate(obj.card.abilities):
            if not ability.is_mana_ability:
                continue
            if mana is None:
                return i
            produced: dict[str, int] = {}
            for eff in ability.effects:
                for c, n in eff.mana:
                    produced[c] = produced.get(c, 0) + n
            if produced == mana:
                return i
        return None

    def _produces(self, obj: GameObject, index: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for eff in obj.card.abilities[index].effects:
            for c, n in eff.mana:
                out[c] = out.get(c, 0) + n
        return out

    def _can_tap_for_cost(self, obj: GameObject) -> str | None:
        """Why the {T} of this permanent can't be paid now, or None."""
        if obj.tapped:
            return f"{obj.label} is tapped"
        if self.is_creature(obj) and obj.sick and not self.has(obj, "haste"):
            return (
                f"{obj.label} has not been under {self.players[obj.controller].name}'s control "
                "since the start of their most recent turn (summoning sickness)"
            )
        return None

    # ---- events -----------------------------------------------------------------------------
    def _emit(
        self, kind: str, text: str, rules: list[str], player: int | None = None, **data: Any
    ) -> Event:
        event = Event(
            seq=len(self.events) + 1,
            kind=kind,
            text=text,
            rules=rules,
            player=self.players[player].name if player is not None else None,
            turn=self.turn,
            active=self.players[self.active].name if self.started else None,
            step=self.step.value if self.started else "",
            data=data,
        )
        self.events.append(event)
        return event

    def trace_text(self, events: list[Event] | None = None) -> str:
        """The trace as text, one event per line."""
        return "\n".join(e.line() for e in (self.events if events is None else events))

    # ---- setup ------------------------------------------------------------------------------
    def put(self, player: str, zone: str, names: list[str]) -> None:
        """Set up a zone from card names; a battlefield name may end with ``(tapped)``,
        ``(new)`` (entered this turn) or ``(face down)``."""
        owner = self.player(player)
        for raw in names:
            name = raw.strip()
            flags: set[str] = set()
            while name.endswith(")") and "(" in name:
                name, _, flag = name[:-1].rpartition("(")
                flags.add(flag.strip().lower())
                name = name.strip()
            unknown = flags - {"tapped", "new", "face down"}
            if unknown:
                raise ScenarioError(f"unknown marker ({', '.join(sorted(unknown))}) on {name!r}")
            obj = self._new_object(self._card(name), owner.index)
            if zone == "battlefield":
                if not obj.card.is_permanent and "face down" not in flags:
                    raise ScenarioError(
                        f"{name} is not a permanent card; it can't be on the battlefield"
                    )
                obj.tapped = "tapped" in flags
                obj.sick = "new" in flags
                obj.face_down = "face down" in flags
                self.battlefield.append(obj)
            elif flags:
                raise ScenarioError(
                    f"markers like ({', '.join(flags)}) apply to the battlefield only"
                )
            elif zone == "hand":
                owner.hand.append(obj)
            elif zone == "graveyard":
                owner.graveyard.append(obj)
            elif zone == "library":
                owner.library.insert(0, obj)  # listed top first
            else:
                raise ScenarioError(f"unknown zone {zone!r}")

    def set_library_count(self, player: str, count: int) -> None:
        """A library of ``count`` unknown cards."""
        owner = self.player(player)
        owner.library = [self._new_object(LIBRARY_CARD, owner.index) for _ in range(count)]

    def start(
        self, active: str | None = None, step: Step = Step.PRECOMBAT_MAIN, turn: int = 2
    ) -> None:
        """Start the game as ``step`` of ``active``'s turn begins (turn 1: the first turn)."""
        if self.started:
            raise ScenarioError("the game has already started")
        self.active = self.player(active).index if active else 0
        if turn < 1:
            raise ScenarioError("turns are numbered from 1")
        if turn == 1:
            self.starting_player = self.active
        else:
            self.starting_player = (self.active - (turn - 1)) % len(self.players)
        self.turn = turn
        self.started = True
        self.step = step
        self._emit(
            "turn",
            f"{self.players[self.active].name}'s turn {turn} (the game starts in the {step.label})",
            _rules("500.1"),
            self.active,
        )
        self._begin_step(step)

    # ---- the public action entry point ------------------------------------------------------
    def perform(self, action: Action) -> list[Event]:
        """Apply one action; return the events it produced (a ``rejected`` event if illegal)."""
        start = len(self.events)
        try:
            p = self.player(action.player).index
        except ScenarioError as err:
            self._emit("rejected", str(err), [])
            return self.events[start:]
        try:
            plan = self._validate(p, action)
        except IllegalAction as err:
            rules = err.rules
            self._emit(
                "rejected",
                f"{self.players[p].name} can't do that: {err.message}",
                rules,
                p,
                action=action.describe(),
            )
        except ScenarioError as err:
            self._emit("rejected", f"{self.players[p].name} can't do that: {err}", [], p)
        else:
            # Validation passed, so applying cannot be refused: the state changes only here.
            _ACTIONS[action.kind][1](self, p, plan)
            self.actions_taken += 1
        return self.events[start:]

    def _validate(self, p: int, action: Action) -> Any:
        """Check an action against the rules without changing the game; return what applying it
        needs (the card, targets, payment plan), or raise :class:`IllegalAction` citing rules."""
        if self.game_over and action.kind != "order_triggers":
            raise IllegalAction("the game is over", "104.1")
        steps = _ACTIONS.get(action.kind)
        if steps is None:
            raise ScenarioError(f"unknown action {action.kind!r} (known: {', '.join(_ACTIONS)})")
        return steps[0](self, p, action)

    def _need_priority(self, p: int, rule: str = "117.1") -> None:
        if not self.players[p].in_game:
            raise IllegalAction(f"{self.players[p].name} has left the game", "800.4a")
        if self.awaiting is not None:
            kind, who, _ = self.awaiting
            raise IllegalAction(
                f"no player has priority while {self.players[who].name} {_AWAITING[kind]}",
                _AWAITING_RULE[kind],
            )
        if self.priority != p:
            holder = "no player" if self.priority is None else self.players[self.priority].name
            raise IllegalAction(
                f"{self.players[p].name} doesn't have priority ({holder} has it)", rule
            )

    # ---- references -------------------------------------------------------------------------
    def _split_owner(self, ref: str) -> tuple[int | None, str]:
        for pl in self.players:
            prefix = pl.name.lower() + "'s "
            if ref.lower().replace("’", "'").startswith(prefix):
                return pl.index, ref[len(prefix) :].strip()
        return None, ref.strip()

    def find_permanent(self, ref: str | int, controller: int | None = None) -> GameObject:
        """The first permanent with that name (or id), optionally of one controller."""
        if isinstance(ref, int):
            for obj in self.battlefield:
                if obj.id == ref:
                    if controller not in (None, obj.controller):
                        raise IllegalAction(
                            f"{obj.label} is controlled by {self.players[obj.controller].name}, "
                            f"not {self.players[controller].name}",
                            "110.2",
                        )
                    return obj
            raise IllegalAction(f"object #{ref} is not on the battlefield", "400.7")
        who, name = self._split_owner(ref)
        if who is not None:
            controller = who
        for obj in self.battlefield:
            if obj.name.lower() == name.lower() and controller in (None, obj.controller):
                return obj
        whose = f"{self.players[controller].name}'s " if controller is not None else ""
        raise IllegalAction(
            f"there is no {name} on {whose or 'the '}battlefield".replace(
                "'s battlefield", "'s side of the battlefield"
            ),
            "110.1",
        )

    def _find_in_hand(self, p: int, ref: str | int) -> GameObject:
        hand = self.players[p].hand
        for obj in hand:
            if obj.id == ref or (isinstance(ref, str) and obj.name.lower() == ref.strip().lower()):
                return obj
        raise IllegalAction(f"{ref} is not in {self.players[p].name}'s hand", "601.2a")

    def _resolve_target(self, ref: str | tuple[str, int], kind: str) -> tuple[str, int]:
        if isinstance(ref, tuple):
            return ref
        who, name = self._split_owner(ref)
        if who is None and kind in ("any", "player"):
            for pl in self.players:
                if pl.name.lower() == name.lower():
                    return ("player", pl.index)
        if kind == "spell":
            for item in reversed(self.stack):
                if (
                    item.kind == "spell"
                    and item.name.lower() == name.lower()
                    and who in (None, item.controller)
                ):
                    return ("object", item.id)
            raise IllegalAction(f"there is no spell {name} on the stack", "115.1", "601.2c")
        obj = self.find_permanent(name, who)
        return ("object", obj.id)

    def _object(self, oid: int) -> GameObject | None:
        for obj in self.battlefield:
            if obj.id == oid:
                return obj
        return None

    def _stack_item(self, oid: int) -> StackObject | None:
        for item in self.stack:
            if item.id == oid:
                return item
        return None

    def target_label(self, target: tuple[str, int]) -> str:
        """A target as text."""
        kind, ident = target
        if kind == "player":
            in_range = 0 <= ident < len(self.players)
            return self.players[ident].name if in_range else f"player #{ident} (no such player)"
        obj = self._object(ident)
        if obj is not None:
            return obj.label
        item = self._stack_item(ident)
        return item.name if item is not None else f"#{ident} (gone)"

    def _target_legal(self, target: tuple[str, int], kind: str, source: int | None = None) -> bool:
        tkind, ident = target
        if tkind == "player":
            return (
                kind in ("any", "player")
                and 0 <= ident < len(self.players)
                and self.players[ident].in_game
            )
        if kind == "spell":
            item = self._stack_item(ident)
            return item is not None and item.kind == "spell" and item.id != source
        obj = self._object(ident)
        return obj is not None and kind in ("any", "creature") and self.is_creature(obj)

    def _choose_targets(
        self,
        effects: tuple[Effect, ...],
        refs: tuple[str | tuple[str, int], ...],
        source: int | None = None,
    ) -> list[tuple[str, int]]:
        kinds = [e.target for e in effects if e.target]
        if len(refs) != len(kinds):
            need = ", ".join(_TARGET_WORDS[k] for k in kinds) or "no target"
            raise IllegalAction(f"it needs {need}; {len(refs)} given", "601.2c")
        chosen = []
        for ref, kind in zip(refs, kinds, strict=True):
            assert kind is not None
            target = self._resolve_target(ref, kind)
            if not self._target_legal(target, kind, source):
                raise IllegalAction(
                    f"{self.target_label(target)} is not {_TARGET_WORDS[kind]}", "115.1", "601.2c"
                )
            chosen.append(target)
        return chosen

    # ---- mana payment -----------------------------------------------------------------------
    def _payment_plan(
        self, p: int, cost: ManaCost, exclude: GameObject | None = None
    ) -> list[tuple[GameObject, int]]:
        """Which mana abilities to activate, in battlefield order, for what the pool lacks."""
        pool = self.players[p].pool.copy()
        if pool.pay(cost):
            return []
        plan: list[tuple[GameObject, int]] = []
        sources = []
        for obj in self.battlefield:
            if obj.controller != p or obj is exclude or self._can_tap_for_cost(obj):
                continue
            index = self._mana_ability(obj)
            if index is not None and obj.card.abilities[index].tap:
                sources.append((obj, index))
        used: set[int] = set()
        need: dict[str, int] = {}
        have = dict(pool.amounts)
        for colour, n in cost.coloured:
            short = n - have.get(colour, 0)
            have[colour] = max(0, have.get(colour, 0) - n)
            if short > 0:
                need[colour] = short
        for colour, n in need.items():
            for obj, index in sources:
                if n <= 0:
                    break
                if obj.id in used:
                    continue
                produced = self._produces(obj, index)
                if produced.get(colour):
                    used.add(obj.id)
                    plan.append((obj, index))
                    pool.add(produced)
                    n -= produced[colour]
        trial = pool.copy()
        while not trial.pay(cost):
            for obj, index in sources:
                if obj.id not in used:
                    used.add(obj.id)
                    plan.append((obj, index))
                    pool.add(self._produces(obj, index))
                    break
            else:
                raise IllegalAction(
                    f"{self.players[p].name} can't pay {cost}: the mana pool has "
                    f"{self.players[p].pool} and the untapped mana sources are not enough",
                    "601.2h",
                    "117.1d",
                )
            trial = pool.copy()
        return plan

    def _pay(self, p: int, cost: ManaCost, plan: list[tuple[GameObject, int]], what: str) -> None:
        for obj, index in plan:
            self._activate_mana(p, obj, index, during=what)
        pool = self.players[p].pool
        paid = pool.pay(cost)
        assert paid, "a checked payment plan must pay"
        if cost.total:
            left = f"; {pool} left in the pool" if not pool.is_empty() else ""
            self._emit(
                "pay",
                f"{self.players[p].name} pays {cost} for {what}{left}",
                _rules("601.2h", "106.4a") if left else _rules("601.2h"),
                p,
            )

    def _activate_mana(
        self, p: int, obj: GameObject, index: int, during: str | None = None
    ) -> None:
        ability = obj.card.abilities[index]
        if ability.tap:
            obj.tapped = True
        mana = self._produces(obj, index)
        self.players[p].pool.add(mana)
        where = f" to pay for {during}" if during else ""
        self._emit(
            "mana",
            f"{self.players[p].name} taps {obj.label} for {format_mana(mana)}{where} "
            "(a mana ability: it doesn't use the stack)",
            _rules("605.3a", "605.3b", "117.1d") if during else _rules("605.3a", "605.3b"),
            p,
        )

    # ---- priority ---------------------------------------------------------------------------
    def _give_priority(self, p: int, rules: list[str], why: str = "") -> None:
        """117.5: state-based actions and triggers until none, then the player gets priority."""
        self.priority = None
        while not self.game_over:
            if self._state_based_actions():
                continue
            if self._put_triggers_on_stack():
                continue
            break
        if self.game_over:
            return
        if not self.players[p].in_game:
            p = self._next_in_game(p)
            rules = [*rules, "800.4j"]
        self.priority = p
        self._emit(
            "priority",
            f"{self.players[p].name} receives priority{why}",
            rules,
            p,
        )

    def _check_pass(self, p: int, action: Action) -> None:
        self._need_priority(p, "117.3d")

    def _apply_pass(self, p: int, plan: None) -> None:
        self._pass(p)
        self._run_shortcut()

    def _pass(self, p: int, shortcut: str = "") -> None:
        pl = self.players[p]
        if (
            self.mode == "tournament"
            and not shortcut
            and self.shortcut is None
            and p == self.active
            and not self.stack
            and self.step.is_main
        ):
            phrase = "combat?" if self.step == Step.PRECOMBAT_MAIN else "go"
            self.shortcut = Shortcut(phrase, p, self.turn, SHORTCUTS[phrase])
            where = "beginning of combat" if phrase == "combat?" else "the end step"
            self._emit(
                "shortcut",
                f"{pl.name} passes with an empty stack in the {self.step.label}: the other players "
                f"are assumed to act in {where}",
                _rules("MTR 4.2"),
                p,
            )
        mana = "" if pl.pool.is_empty() else f", announcing {pl.pool} in the mana pool"
        rules = _rules("117.3d", "106.4b") if mana else _rules("117.3d")
        if shortcut:
            rules = [*rules, "MTR 4.2"]
        self.passes += 1
        self.priority = None
        self._emit("pass", f"{pl.name} passes{mana}{shortcut}", rules, p)
        if self.passes >= len(self.in_game()):
            self.passes = 0
            if self.stack:
                self._resolve_top()
                if not self.game_over:
                    self._give_priority(self.active, _rules("117.3b"), " (after a resolution)")
            else:
                self._emit(
                    "all passed",
                    f"all players passed in succession with an empty stack: the {self.step.label} ends",
                    _rules("117.4", "500.2"),
                )
                self._end_step()
        else:
            self._give_priority(self._next_in_game(p), _rules("117.3d"), " (next in turn order)")

    def _after_action(self, p: int, rule: str, adds_to_stack: bool) -> None:
        """117.3c / 116.3: the acting player receives priority again (or passes, MTR 4.2)."""
        self.passes = 0
        self._give_priority(p, _rules(rule))
        if (
            adds_to_stack
            and self.mode == "tournament"
            and self.priority == p
            and not self.game_over
        ):
            if p in self.holding:
                self.holding.discard(p)
                self._emit(
                    "hold", f"{self.players[p].name} holds priority", _rules("MTR 4.2", "117.3c"), p
                )
            else:
                self._pass(p, " (adding an object to the stack passes priority)")

    # ---- casting spells ---------------------------------------------------------------------
    def _check_cast(self, p: int, action: Action) -> _CastPlan:
        self._need_priority(p, "117.1a")
        if action.card is None:
            raise IllegalAction("no card named: a spell is cast from a hand", "601.2a")
        card = self._find_in_hand(p, action.card)
        cdef = card.card
        if cdef.is_a("land"):
            raise IllegalAction(f"{cdef.name} is a land: it is played, not cast", "305.1", "305.9")
        if cdef.cost is None and not action.face_down:
            raise IllegalAction(f"{cdef.name} is an unknown card", "601.2")
        self._check_split_second("cast a spell")
        if action.face_down:
            if cdef.morph is None:
                raise IllegalAction(
                    f"{cdef.name} has no morph ability: it can't be cast face down", "702.37d"
                )
            effects: tuple[Effect, ...] = ()
            cost = MORPH_COST
            instant = False
        else:
            effects = cdef.effects
            cost = cdef.cost or ManaCost()
            instant = cdef.is_a("instant") or "flash" in cdef.keywords
        if not instant:
            self._check_sorcery_timing(p, cdef, face_down=action.face_down)
        targets = self._choose_targets(effects, action.targets)
        payment = self._payment_plan(p, cost)
        return _CastPlan(card, effects, cost, targets, payment, action.face_down)

    def _apply_cast(self, p: int, plan: _CastPlan) -> None:
        """601.2a–i: the card moves to the stack, its targets are announced, its cost is paid."""
        card, targets = plan.card, plan.targets
        cdef = card.card
        self.players[p].hand.remove(card)
        item = StackObject(
            self._new_id(), "spell", cdef.name, p, plan.effects, targets, card, plan.face_down
        )
        self.stack.append(item)
        label = "a face-down creature spell" if plan.face_down else cdef.name
        aimed = f" targeting {', '.join(self.target_label(t) for t in targets)}" if targets else ""
        response = " in response to " + self.stack[-2].name if len(self.stack) > 1 else ""
        rules = _rules("601.2", "601.2c") if targets else _rules("601.2")
        if response:
            rules.append("117.7")
        if plan.face_down:
            rules.append("702.37c")
        elif cdef.is_a("instant"):
            rules.append("304.1")
        elif "flash" in cdef.keywords:
            rules.append("702.8a")
        self._emit("cast", f"{self.players[p].name} casts {label}{aimed}{response}", rules, p)
        self._pay(p, plan.cost, plan.payment, label)
        self._trigger_event("cast", controller=p)
        self._after_action(p, "117.3c", adds_to_stack=True)
        self._run_shortcut()

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def _check_split_second(self, what: str) -> None:
        for item in self.stack:
            if item.split_second:
                raise IllegalAction(
                    f"{item.name} (split second) is on the stack: players can't {what}; "
                    "only mana abilities and special actions are allowed",
                    "702.61a",
                )

    def _check_sorcery_timing(self, p: int, cdef: CardDef, face_down: bool = False) -> None:
        type_rule = "307.1"
        for card_type, rule in (
            ("creature", "302.1"),
            ("artifact", "301.1"),
            ("enchantment", "303.1"),
        ):
            if cdef.is_a(card_type) or face_down:
                type_rule = "302.1" if face_down else rule
                break
        kind = "a creature" if face_down else f"a {cdef.types[-1]}"
        if p != self.active or not self.step.is_main:
            raise IllegalAction(
                f"{cdef.name} is {kind} spell: it can be cast only in its caster's main phase "
                f"(it is {self.players[self.active].name}'s {self.step.label})",
                "117.1a",
                type_rule,
            )
        if self.stack:
            raise IllegalAction(
                f"{cdef.name} is {kind} spell: it can be cast only while the stack is empty "
                f"({self.stack[-1].name} is on it)",
                "117.1a",
                type_rule,
            )

    # ---- activated abilities ----------------------------------------------------------------
    def _check_activate(self, p: int, action: Action) -> _ActivatePlan | _ManaPlan:
        self._need_priority(p, "117.1b")
        if action.card is None:
            raise IllegalAction("no permanent named: whose ability is activated?", "602.2")
        obj = self.find_permanent(action.card, p)
        abilities = () if obj.face_down else obj.card.abilities
        if not abilities:
            raise IllegalAction(f"{obj.label} has no activated ability", "602.1")
        if action.ability is not None:
            if not 1 <= action.ability <= len(abilities):
                raise IllegalAction(
                    f"{obj.label} has {len(abilities)} activated abilities", "602.1"
                )
            index = action.ability - 1
        else:
            index = next((i for i, a in enumerate(abilities) if not a.is_mana_ability), 0)
        ability = abilities[index]
        if ability.is_mana_ability:
            return self._check_mana_ability(obj, index, action.targets)
        self._check_split_second("activate abilities other than mana abilities")
        if ability.tap:
            why = self._can_tap_for_cost(obj)
            if why:
                raise IllegalAction(why, "602.2b", "302.6")
        targets = self._choose_targets(ability.effects, action.targets)
        payment = self._payment_plan(p, ability.mana_cost, exclude=obj if ability.tap else None)
        return _ActivatePlan(obj, index, targets, payment)

    def _apply_activate(self, p: int, plan: _ActivatePlan | _ManaPlan) -> None:
        """602.2: the ability goes on the stack, then its costs are paid."""
        if isinstance(plan, _ManaPlan):
            self._apply_mana(p, plan)
            return
        obj, targets = plan.obj, plan.targets
        ability = obj.card.abilities[plan.index]
        name = f"{obj.card.name} ability"
        item = StackObject(self._new_id(), "activated ability", name, p, ability.effects, targets)
        self.stack.append(item)
        aimed = f" targeting {', '.join(self.target_label(t) for t in targets)}" if targets else ""
        rules = _rules("602.2", "117.1b")
        if len(self.stack) > 1:
            rules.append("117.7")
        self._emit(
            "activate",
            f"{self.players[p].name} activates {obj.label}: {ability.text}{aimed}",
            rules,
            p,
        )
        if ability.tap:
            obj.tapped = True
        self._pay(p, ability.mana_cost, plan.payment, name)
        self._after_action(p, "117.3c", adds_to_stack=True)
        self._run_shortcut()

    def _check_mana(self, p: int, action: Action) -> _ManaPlan:
        self._need_priority(p, "605.3a")
        if action.card is None:
            raise IllegalAction("no permanent named: whose mana ability is activated?", "605.3a")
        obj = self.find_permanent(action.card, p)
        if action.ability is not None:
            index = action.ability - 1
            if obj.face_down or not 0 <= index < len(obj.card.abilities):
                raise IllegalAction(f"{obj.label} has no ability {action.ability}", "602.1")
        else:
            try:
                wanted = parse_mana(action.mana) if action.mana else None
            except ManaError as err:
                raise IllegalAction(str(err), "106.1") from None
            found = self._mana_ability(obj, wanted)
            if found is None:
                raise IllegalAction(
                    f"{obj.label} has no mana ability that adds {action.mana or 'mana'}", "605.1a"
                )
            index = found
        return self._check_mana_ability(obj, index, action.targets)

    def _check_mana_ability(
        self, obj: GameObject, index: int, targets: tuple[str | tuple[str, int], ...]
    ) -> _ManaPlan:
        """605.1a, 605.3a: a mana ability has no target, and its {T} cost must be payable."""
        ability = obj.card.abilities[index]
        if not ability.is_mana_ability:
            raise IllegalAction(
                f"{obj.label}'s ability {index + 1} is not a mana ability: it is activated and "
                "uses the stack",
                "605.1a",
                "602.2",
            )
        if targets:
            raise IllegalAction(f"{obj.label}'s mana ability has no target", "605.1a")
        if ability.tap:
            why = self._can_tap_for_cost(obj)
            if why:
                raise IllegalAction(why, "605.3a", "302.6")
        return _ManaPlan(obj, index)

    def _apply_mana(self, p: int, plan: _ManaPlan) -> None:
        """605.3b: a mana ability resolves at once; its controller keeps priority (405.6c)."""
        self._activate_mana(p, plan.obj, plan.index)
        self.passes = 0
        self._give_priority(p, _rules("405.6c"))

    # ---- special actions (116) --------------------------------------------------------------
    def _check_play_land(self, p: int, action: Action) -> GameObject:
        """116.2a, 305.1–3: a land from your hand, in your main phase, stack empty, once a turn."""
        self._need_priority(p, "116.2a")
        pl = self.players[p]
        card = None
        if action.card is not None:
            try:
                card = self._find_in_hand(p, action.card)
            except IllegalAction:
                card = None
        if card is None:
            raise IllegalAction(f"{action.card} is not in {pl.name}'s hand", "305.1", "116.2a")
        if not card.card.is_a("land"):
            raise IllegalAction(
                f"{card.name} is not a land: it is cast, not played", "305.1", "116.2a"
            )
        if p != self.active:
            raise IllegalAction(f"it isn't {pl.name}'s turn", "305.3", "116.2a")
        if not self.step.is_main or self.stack:
            where = "the stack isn't empty" if self.stack else f"it is the {self.step.label}"
            raise IllegalAction(
                f"a land is played only in its owner's main phase with an empty stack ({where})",
                "305.1",
                "116.2a",
            )
        if pl.lands_played >= 1:
            raise IllegalAction(f"{pl.name} has already played a land this turn", "305.2", "116.2a")
        return card

    def _apply_play_land(self, p: int, card: GameObject) -> None:
        pl = self.players[p]
        pl.hand.remove(card)
        permanent = self._enter(card.card, p)
        pl.lands_played += 1
        self._emit(
            "special action",
            f"{pl.name} plays {permanent.label} (a special action: it doesn't use the stack)",
            _rules("116.2a", "305.1"),
            p,
        )
        self._after_action(p, "116.3", adds_to_stack=False)

    def _check_turn_face_up(self, p: int, action: Action) -> _ManaCostPlan:
        """702.37e: any time you have priority, pay the morph cost of your face-down permanent."""
        self._need_priority(p, "116.2b")
        if action.card is None:
            raise IllegalAction("no permanent named: which one is turned face up?", "702.37e")
        obj = self.find_permanent(action.card, p)
        if not obj.face_down:
            raise IllegalAction(f"{obj.label} is not face down", "702.37e")
        if obj.card.morph is None:
            raise IllegalAction(f"{obj.card.name} has no morph cost", "702.37e")
        return _ManaCostPlan(obj, self._payment_plan(p, obj.card.morph))

    def _apply_turn_face_up(self, p: int, plan: _ManaCostPlan) -> None:
        obj = plan.obj
        assert obj.card.morph is not None
        self._emit(
            "special action",
            f"{self.players[p].name} turns {obj.label} face up (a special action: it doesn't use the stack)",
            _rules("116.2b", "702.37e"),
            p,
        )
        self._pay(p, obj.card.morph, plan.payment, f"the morph cost of {obj.card.name}")
        obj.face_down = False
        self._after_action(p, "116.3", adds_to_stack=False)

    # ---- other player choices ---------------------------------------------------------------
    def _check_in_game(self, p: int, action: Action) -> None:
        """Choices and announcements need no priority, only a player still in the game."""
        if not self.players[p].in_game:
            raise IllegalAction(f"{self.players[p].name} has left the game", "800.4a", "104.3a")

    def _check_order_triggers(self, p: int, action: Action) -> tuple[str, ...]:
        self._check_in_game(p, action)
        return action.names

    def _apply_order_triggers(self, p: int, names: tuple[str, ...]) -> None:
        """603.3b: the order in which the player's next simultaneous triggers go on the stack."""
        self.trigger_order[p] = [n.lower() for n in names]
        self._emit(
            "choice",
            f"{self.players[p].name} will put their triggered abilities on the stack in this order: "
            + ", ".join(names),
            _rules("603.3b"),
            p,
        )

    def _apply_hold(self, p: int, plan: None) -> None:
        if self.mode != "tournament":
            self._emit(
                "note",
                f"{self.players[p].name} holds priority (in strict mode a player always keeps "
                "priority after casting or activating)",
                _rules("117.3c"),
                p,
            )
            return
        self.holding.add(p)
        self._emit(
            "note",
            f"{self.players[p].name} announces they will hold priority",
            _rules("MTR 4.2"),
            p,
        )

    def _check_concede(self, p: int, action: Action) -> None:
        if not self.players[p].in_game:
            raise IllegalAction(f"{self.players[p].name} has already left the game", "104.3a")

    def _apply_concede(self, p: int, plan: None) -> None:
        self._emit("concede", f"{self.players[p].name} concedes", _rules("104.3a"), p)
        had_priority = self.priority == p
        self._leave([p], "conceded")
        if not self.game_over and had_priority:
            self._give_priority(
                self._next_in_game(p), _rules("800.4a", "117.3d"), " (next in turn order)"
            )

    # ---- combat declarations (turn-based actions) -------------------------------------------
    def _check_attack(self, p: int, action: Action) -> list[tuple[GameObject, int]]:
        """508.1a–b: untapped creatures that have been controlled since the turn began (or have
        haste), each attacking one opponent."""
        if self.awaiting is None or self.awaiting[0] != "attackers":
            raise IllegalAction(
                f"attackers are declared as the declare attackers step begins (it is the {self.step.label})",
                "508.1",
                "703.4i",
            )
        if p != self.awaiting[1]:
            raise IllegalAction("only the active player declares attackers", "508.1")
        chosen: list[tuple[GameObject, int]] = []
        seen: set[int] = set()
        for ref, target in action.attackers:
            obj = self.find_permanent(ref, p)
            if obj.id in seen:
                raise IllegalAction(f"{obj.label} is declared twice", "508.1a")
            seen.add(obj.id)
            if not self.is_creature(obj):
                raise IllegalAction(f"{obj.label} is not a creature", "508.1a")
            if obj.tapped:
                raise IllegalAction(f"{obj.label} is tapped", "508.1a")
            if obj.sick and not self.has(obj, "haste"):
                raise IllegalAction(
                    f"{obj.label} has not been under {self.players[p].name}'s control since the turn "
                    "began and has no haste",
                    "508.1a",
                    "302.6",
                )
            if target is None:
                defender = self.opponents(p)[0]
            else:
                try:
                    defender = self.player(target).index
                except ScenarioError:
                    defender = p
                if defender == p or not self.players[defender].in_game:
                    raise IllegalAction(f"{target} is not an opponent in the game", "508.1b")
            chosen.append((obj, defender))
        return chosen

    def _apply_attack(self, p: int, chosen: list[tuple[GameObject, int]]) -> None:
        self.awaiting = None
        for obj, defender in chosen:
            obj.tapped = True
            obj.attacking = defender
        if chosen:
            text = ", ".join(f"{o.label} attacking {self.players[d].name}" for o, d in chosen)
            self._emit(
                "declare",
                f"{self.players[p].name} declares attackers: {text}",
                _rules("508.1", "508.1f", "703.4i"),
                p,
            )
        else:
            self._emit(
                "declare",
                f"{self.players[p].name} declares no attackers",
                _rules("508.1", "508.8"),
                p,
            )
        self._give_priority(self.active, _rules("508.2", "117.3a"))
        self._run_shortcut()

    def _check_block(self, p: int, action: Action) -> list[tuple[GameObject, GameObject]]:
        """509.1a: each untapped creature of the defending player blocks at most one creature
        attacking that player."""
        if self.awaiting is None or self.awaiting[0] != "blockers":
            raise IllegalAction(
                f"blockers are declared as the declare blockers step begins (it is the {self.step.label})",
                "509.1",
                "703.4j",
            )
        if p != self.awaiting[1]:
            raise IllegalAction(
                f"{self.players[self.awaiting[1]].name} declares blockers now (APNAP order)",
                "509.1",
                "101.4",
            )
        chosen: list[tuple[GameObject, GameObject]] = []
        seen: set[int] = set()
        for bref, aref in action.blocks:
            blocker = self.find_permanent(bref, p)
            attacker = self.find_permanent(aref)
            if blocker.id in seen:
                raise IllegalAction(f"{blocker.label} can block only one creature", "509.1a")
            seen.add(blocker.id)
            if not self.is_creature(blocker) or blocker.tapped:
                raise IllegalAction(f"{blocker.label} is not an untapped creature", "509.1a")
            if attacker.attacking != p:
                raise IllegalAction(
                    f"{attacker.label} is not attacking {self.players[p].name}", "509.1a"
                )
            chosen.append((blocker, attacker))
        return chosen

    def _apply_block(self, p: int, chosen: list[tuple[GameObject, GameObject]]) -> None:
        for blocker, attacker in chosen:
            blocker.blocking = attacker.id
            attacker.blocked = True
        if chosen:
            text = ", ".join(f"{b.label} blocks {a.label}" for b, a in chosen)
            self._emit(
                "declare",
                f"{self.players[p].name} declares blockers: {text}",
                _rules("509.1", "703.4j"),
                p,
            )
        else:
            self._emit(
                "declare", f"{self.players[p].name} declares no blockers", _rules("509.1"), p
            )
        self.blockers_pending.remove(p)
        self._next_blocker_declaration()

    def _next_blocker_declaration(self) -> None:
        self.blockers_pending = [d for d in self.blockers_pending if self.players[d].in_game]
        if self.blockers_pending:
            self.awaiting = ("blockers", self.blockers_pending[0], 0)
            return
        self.awaiting = None
        self._give_priority(self.active, _rules("509.2", "117.3a"))
        self._run_shortcut()

    def _check_discard(self, p: int, action: Action) -> GameObject:
        if self.awaiting is None or self.awaiting[0] != "discard":
            raise IllegalAction(
                "a player discards only when told to: here, as the cleanup step's turn-based action "
                "when their hand is over its maximum size",
                "514.1",
            )
        if p != self.awaiting[1]:
            raise IllegalAction("only the active player discards in the cleanup step", "514.1")
        if action.card is None:
            raise IllegalAction("no card named: which card is discarded?", "514.1", "701.9a")
        try:
            return self._find_in_hand(p, action.card)
        except IllegalAction as err:
            raise IllegalAction(err.message, "514.1", "701.9a") from None

    def _apply_discard(self, p: int, card: GameObject) -> None:
        assert self.awaiting is not None
        self._discard(p, card, _rules("514.1", "701.9a"))
        left = self.awaiting[2] - 1
        if left:
            self.awaiting = ("discard", p, left)
            return
        self.awaiting = None
        self._cleanup_after_discard()
        self._run_shortcut()

    def _discard(self, p: int, card: GameObject, rules: list[str]) -> None:
        pl = self.players[p]
        pl.hand.remove(card)
        pl.graveyard.append(self._new_object(card.card, card.owner))
        self._emit("discard", f"{pl.name} discards {card.name}", rules, p)
        self._trigger_event("discard", controller=p)

    # ---- shortcuts (MTR 4.2) ----------------------------------------------------------------
    def _check_shortcut(self, p: int, action: Action) -> Shortcut:
        phrase = action.phrase.strip().lower().strip('"“”')
        if phrase not in SHORTCUTS:
            raise IllegalAction(
                f"unknown shortcut {action.phrase!r} (known: {', '.join(SHORTCUTS)})", "MTR 4.2"
            )
        if self.mode != "tournament":
            raise IllegalAction(
                "tournament shortcuts are used in tournament mode ('mode: tournament')", "MTR 4.2"
            )
        self._need_priority(p, "MTR 4.2")
        stop = SHORTCUTS[phrase]
        if stop != Step.END and (p != self.active or self.step.order >= stop.order):
            raise IllegalAction(
                f"{phrase!r} is said by the active player before the {stop.label}", "MTR 4.2"
            )
        return Shortcut(phrase, p, self.turn, stop)

    def _apply_shortcut(self, p: int, shortcut: Shortcut) -> None:
        self.shortcut = shortcut
        self._emit(
            "shortcut",
            f'{self.players[p].name} says "{shortcut.phrase}": players pass until an opponent has '
            f"priority in the {shortcut.stop.label}",
            _rules("MTR 4.2"),
            p,
        )
        self._pass(p, " (shortcut)")
        self._run_shortcut()

    def _run_shortcut(self) -> None:
        guard = 0
        while self.shortcut is not None and not self.game_over:
            guard += 1
            assert guard < 10_000, "a shortcut must reach its stop"
            sc = self.shortcut
            if self.turn != sc.turn or self.step.order > sc.stop.order:
                self.shortcut = None
                self._emit(
                    "shortcut",
                    f'the shortcut "{sc.phrase}" ends: its stop has passed',
                    _rules("MTR 4.2"),
                )
                return
            if self.step == sc.stop and self.priority is not None and self.priority != sc.player:
                self.shortcut = None
                self._emit(
                    "shortcut",
                    f'the shortcut "{sc.phrase}" stops: {self.players[self.priority].name} has '
                    f"priority in the {self.step.label}",
                    _rules("MTR 4.2"),
                    self.priority,
                )
                return
            if self.awaiting is not None:
                kind, who, _ = self.awaiting
                if kind == "attackers" and sc.phrase in ("go", "your turn", "no attacks"):
                    # Declaring no attackers is always legal for the player declaring.
                    self._apply_attack(who, [])
                    return
                self.shortcut = None
                return
            if self.priority is None:
                self.shortcut = None
                return
            self._pass(self.priority, " (shortcut)")

    # ---- advancing (everyone passes) --------------------------------------------------------
    def advance_to(self, player: str, step: Step, limit: int = 5000) -> list[Event]:
        """Everyone passes (declaring no attackers or blockers, discarding the last cards) until
        ``step`` of ``player``'s turn is reached with a player to act."""
        target = self.player(player).index
        start = len(self.events)
        if step == Step.UNTAP:
            raise ScenarioError("no player receives priority in the untap step (502.4)")
        for _ in range(limit):
            if self.game_over:
                raise ScenarioError(f"the game ended before {player}'s {step.label}")
            if (
                self.active == target
                and self.step == step
                and (self.priority is not None or self.awaiting)
            ):
                return self.events[start:]
            if self.awaiting is not None:
                kind, who, _ = self.awaiting
                name = self.players[who].name
                if kind == "attackers":
                    self.perform(Action("attack", name))
                elif kind == "blockers":
                    self.perform(Action("block", name))
                else:
                    self.perform(Action("discard", name, self.players[who].hand[-1].id))
            elif self.priority is not None:
                self.perform(Action("pass", self.players[self.priority].name))
            else:  # pragma: no cover - the state machine always has someone to act
                raise ScenarioError("the game is stuck: nobody can act")
        raise ScenarioError(f"{player}'s {step.label} was not reached within {limit} actions")

    # ---- resolving --------------------------------------------------------------------------
    def _resolve_top(self) -> None:
        item = self.stack.pop()
        p = item.controller
        kinds = [e.target for e in item.effects if e.target]
        legal = [
            self._target_legal(t, k, item.id) for t, k in zip(item.targets, kinds, strict=True)
        ]
        if item.targets and not any(legal):
            self._emit(
                "fizzle",
                f"{item.name} doesn't resolve: its target is no longer legal"
                if len(item.targets) == 1
                else f"{item.name} doesn't resolve: all its targets are illegal",
                _rules("608.2b"),
                p,
            )
            if item.card is not None:
                self._to_graveyard(item.card)
            return
        self._emit(
            "resolve", f"{item.name} resolves", _rules("117.4", "608.2"), p, resolved=item.name
        )
        targets = iter(zip(item.targets, legal, strict=True))
        for effect in item.effects:
            target = None
            if effect.target:
                target, ok = next(targets)
                if not ok:
                    self._emit(
                        "effect",
                        f"{self.target_label(target)} is an illegal target: that part does nothing",
                        _rules("608.2b"),
                        p,
                    )
                    continue
            self._apply(effect, p, item, target)
            if self.game_over:
                return
        if item.card is not None:
            if item.face_down:
                obj = self._enter(item.card.card, p, face_down=True)
                self._emit(
                    "enter",
                    f"a face-down 2/2 creature ({obj.card.name}) enters the battlefield",
                    _rules("608.3", "708.3"),
                    p,
                )
            elif item.card.card.is_permanent:
                obj = self._enter(item.card.card, p)
                self._emit(
                    "enter",
                    f"{obj.label} enters the battlefield under {self.players[p].name}'s control",
                    _rules("608.3"),
                    p,
                )
            else:
                self._to_graveyard(item.card)

    def _to_graveyard(self, card: GameObject) -> None:
        owner = self.players[card.owner]
        if owner.in_game:
            owner.graveyard.append(self._new_object(card.card, card.owner))

    def _enter(self, cdef: CardDef, controller: int, face_down: bool = False) -> GameObject:
        obj = self._new_object(cdef, controller)
        obj.sick = True
        obj.face_down = face_down
        self.battlefield.append(obj)
        if self.is_creature(obj):
            self._trigger_event("enters", controller=controller, subject=obj)
        return obj

    def _apply(
        self, effect: Effect, p: int, item: StackObject, target: tuple[str, int] | None
    ) -> None:
        name = self.players[p].name
        kind = effect.kind
        source = item.name
        if kind == "damage":
            if target is not None:
                recipients = [target]
            elif effect.scope == "each opponent":
                recipients = [("player", o) for o in self.opponents(p)]
            elif effect.scope == "each player":
                recipients = [("player", o) for o in self.apnap()]
            else:
                recipients = [("object", o.id) for o in self.battlefield if self.is_creature(o)]
            deathtouch = item.card is not None and "deathtouch" in item.card.card.keywords
            for r in recipients:
                self._damage(r, effect.amount, source, deathtouch, combat=False)
        elif kind == "gain":
            self.players[p].life += effect.amount
            self._emit(
                "life",
                f"{name} gains {effect.amount} life ({self.players[p].life})",
                _rules("119.3"),
                p,
            )
        elif kind == "lose":
            who = self.opponents(p) if effect.scope == "each opponent" else [p]
            for o in who:
                self.players[o].life -= effect.amount
                self._emit(
                    "life",
                    f"{self.players[o].name} loses {effect.amount} life ({self.players[o].life})",
                    _rules("119.3"),
                    o,
                )
        elif kind == "draw":
            for _ in range(effect.amount):
                self._draw(p, _rules("121.1", "121.2"))
        elif kind == "discard":
            for _ in range(effect.amount):
                if self.players[p].hand:
                    self._discard(p, self.players[p].hand[-1], _rules("701.9a"))
        elif kind == "add":
            mana = dict(effect.mana)
            self.players[p].pool.add(mana)
            self._emit(
                "mana",
                f"{name} adds {format_mana(mana)} (the spell is not a mana ability)",
                _rules("106.4", "605.5b"),
                p,
            )
        elif kind == "counter":
            assert target is not None
            countered = self._stack_item(target[1])
            assert countered is not None
            self.stack.remove(countered)
            self._emit("counter", f"{countered.name} is countered", _rules("701.6a"), p)
            if countered.card is not None:
                self._to_graveyard(countered.card)
        elif kind == "destroy":
            assert target is not None
            obj = self._object(target[1])
            assert obj is not None
            self._emit("destroy", f"{obj.label} is destroyed", _rules("701.8a"), p)
            self._leave_battlefield([obj], dies=True)
        elif kind == "pump":
            assert target is not None
            obj = self._object(target[1])
            assert obj is not None
            until = effect.until
            step = None
            player = None
            if until.startswith("your next "):
                step = parse_step(until[len("your next ") :])
                player = p
            obj.modifiers.append(Modifier(effect.amount, effect.toughness, until, step, player))
            self._emit(
                "effect",
                f"{obj.label} gets {effect.amount:+d}/{effect.toughness:+d} until {until} "
                f"({self.power(obj)}/{self.toughness(obj)})",
                _rules("611.2a"),
                p,
            )
        elif kind == "delayed":
            assert effect.delayed is not None
            self.delayed.append(
                DelayedTrigger(
                    p,
                    item.name.removesuffix(" ability").removesuffix(" trigger"),
                    effect.delayed,
                    effect.then,
                )
            )
            self._emit(
                "effect",
                f"{name} creates a delayed triggered ability: {effect.text}",
                _rules("603.7", "603.7a"),
                p,
            )

    def _damage(
        self, recipient: tuple[str, int], amount: int, source: str, deathtouch: bool, combat: bool
    ) -> None:
        if amount <= 0:
            return
        kind, ident = recipient
        what = "combat damage" if combat else "damage"
        if kind == "player":
            pl = self.players[ident]
            if not pl.in_game:
                return
            pl.life -= amount
            self._emit(
                "damage",
                f"{source} deals {amount} {what} to {pl.name} ({pl.life} life)",
                _rules("120.3a"),
                ident,
            )
            return
        obj = self._object(ident)
        if obj is None:
            return
        obj.damage += amount
        if deathtouch:
            obj.deathtouch_damage = True
        self._emit(
            "damage",
            f"{source} deals {amount} {what} to {obj.label} ({obj.damage} damage marked, toughness {self.toughness(obj)})",
            _rules("120.3e", "702.2b") if deathtouch else _rules("120.3e"),
        )

    def _draw(self, p: int, rules: list[str]) -> None:
        pl = self.players[p]
        if not pl.library:
            pl.drew_from_empty = True
            self._emit(
                "draw",
                f"{pl.name} attempts to draw from an empty library",
                _rules("121.4", *rules),
                p,
            )
            return
        card = pl.library.pop()
        pl.hand.append(self._new_object(card.card, p))
        self._emit("draw", f"{pl.name} draws a card ({card.name})", rules, p)

    # ---- leaving the battlefield and the game -----------------------------------------------
    def _leave_battlefield(self, objs: list[GameObject], dies: bool) -> None:
        for obj in objs:
            if obj in self.battlefield:
                self.battlefield.remove(obj)
                self._to_graveyard(obj)
        if dies:
            for obj in objs:
                if self.is_creature(obj):
                    self._trigger_event("dies", controller=obj.controller, subject=obj)

    def _leave(self, players: list[int], why: str) -> None:
        for p in players:
            pl = self.players[p]
            pl.in_game = False
            pl.lost = True
        remaining = self.in_game()
        multiplayer = len(self.players) > 2
        for p in players:
            pl = self.players[p]
            if multiplayer and remaining:
                self.battlefield = [o for o in self.battlefield if o.owner != p]
                self.stack = [
                    s for s in self.stack if (s.card.owner if s.card else s.controller) != p
                ]
                self.pending = [t for t in self.pending if t.controller != p]
                for obj in self.battlefield:
                    if obj.attacking == p:
                        obj.attacking = None
                self._emit(
                    "leave",
                    f"{pl.name} leaves the game ({why}); every object {pl.name} owns leaves the game too",
                    _rules("800.4a", "104.3a") if why == "conceded" else _rules("800.4a"),
                    p,
                )
        self.blockers_pending = [d for d in self.blockers_pending if self.players[d].in_game]
        if self.awaiting and not self.players[self.awaiting[1]].in_game:
            if self.awaiting[0] == "blockers":
                self.awaiting = None
                self._next_blocker_declaration()
            else:
                self.awaiting = None
        if len(remaining) <= 1:
            self.game_over = True
            self.priority = None
            self.shortcut = None
            if remaining:
                self.winner = remaining[0].index
                self._emit(
                    "game",
                    f"{remaining[0].name} wins the game",
                    _rules("104.2a"),
                    remaining[0].index,
                )
            else:
                self.winner = None
                self._emit(
                    "game",
                    "all remaining players lost at the same time: the game is a draw",
                    _rules("104.4a"),
                )

    # ---- state-based actions (704) ----------------------------------------------------------
    def _state_based_actions(self) -> bool:
        """Check 704.5a/b/f/g/h once; perform all that apply as a single event (704.3)."""
        losers: list[tuple[int, str, str]] = []
        for pl in self.players:
            if not pl.in_game:
                continue
            if pl.life <= 0:
                losers.append(
                    (pl.index, f"{pl.name} has {pl.life} life and loses the game", "704.5a")
                )
            elif pl.drew_from_empty:
                losers.append(
                    (pl.index, f"{pl.name} drew from an empty library and loses the game", "704.5b")
                )
        dying: list[tuple[GameObject, str, str]] = []
        for obj in self.battlefield:
            if not self.is_creature(obj):
                continue
            t = self.toughness(obj)
            if t <= 0:
                dying.append(
                    (
                        obj,
                        f"{obj.label} has toughness {t} and is put into its owner's graveyard",
                        "704.5f",
                    )
                )
            elif obj.damage >= t:
                dying.append((obj, f"{obj.label} has lethal damage and is destroyed", "704.5g"))
            elif obj.deathtouch_damage:
                dying.append(
                    (
                        obj,
                        f"{obj.label} was dealt damage by a source with deathtouch and is destroyed",
                        "704.5h",
                    )
                )
        for pl in self.players:
            pl.drew_from_empty = False
        for obj in self.battlefield:
            obj.deathtouch_damage = False
        if not losers and not dying:
            return False
        parts = [text for _, text, _ in losers] + [text for _, text, _ in dying]
        rules = ["704.3", *sorted({r for *_, r in losers} | {r for *_, r in dying})]
        self._emit("state-based actions", "state-based actions: " + "; ".join(parts), rules)
        if dying:
            self._leave_battlefield([o for o, _, _ in dying], dies=True)
        if losers:
            self._leave([p for p, _, _ in losers], "lost")
        return True

    # ---- triggered abilities (603) ----------------------------------------------------------
    def _trigger_event(
        self, event: str, controller: int, subject: GameObject | None = None
    ) -> None:
        for obj in self.battlefield:
            if obj.face_down:
                continue
            for trig in obj.card.triggers:
                ev = trig.condition.event
                if ev is None:
                    continue
                mine = obj.controller == controller
                hit = (
                    (event == "enters" and ev == "enters")
                    or (event == "enters" and ev == "another enters" and subject is not obj)
                    or (event == "enters" and ev == "your creature enters" and mine)
                    or (event == "cast" and ev == "cast")
                    or (event == "cast" and ev == "you cast" and mine)
                    or (event == "cast" and ev == "opponent casts" and not mine)
                    or (event == "discard" and ev == "discard")
                    or (event == "discard" and ev == "you discard" and mine)
                    or (event == "dies" and ev == "dies")
                    or (event == "dies" and ev == "another dies" and subject is not obj)
                )
                if hit:
                    self._add_trigger(
                        obj.controller, obj.card.name, trig.effects, trig.condition.text
                    )
        if event == "dies" and subject is not None:
            # Leaves-the-battlefield abilities look back in time (603.10a): the dying creature's own.
            for trig in subject.card.triggers:
                if trig.condition.event in ("dies",) and not subject.face_down:
                    self._add_trigger(
                        subject.controller, subject.card.name, trig.effects, trig.condition.text
                    )

    def _add_trigger(
        self, controller: int, source: str, effects: tuple[Effect, ...], condition: str
    ) -> None:
        self.pending.append(PendingTrigger(controller, source, effects, condition))
        self._emit(
            "triggered",
            f"{source}'s ability triggers ({condition}); it waits to be put on the stack",
            _rules("603.2", "117.2a"),
            controller,
        )

    def _step_triggers(self, step: Step) -> None:
        for obj in list(self.battlefield):
            if obj.face_down:
                continue
            for trig in obj.card.triggers:
                cond = trig.condition
                if cond.step == step and (cond.whose == "each" or obj.controller == self.active):
                    self._add_trigger(obj.controller, obj.card.name, trig.effects, cond.text)
        for delayed in list(self.delayed):
            if delayed.condition.step == step:
                self.delayed.remove(delayed)
                self._add_trigger(
                    delayed.controller, delayed.source, delayed.effects, delayed.condition.text
                )

    def _put_triggers_on_stack(self) -> bool:
        """603.3b: each player in APNAP order puts their waiting abilities on the stack."""
        if not self.pending:
            return False
        waiting = [t for t in self.pending if self.players[t.controller].in_game]
        self.pending = []
        several = len(waiting) > 1
        for p in self.apnap():
            mine = [t for t in waiting if t.controller == p]
            prefs = self.trigger_order.get(p)
            if prefs and len(mine) > 1:
                mine.sort(
                    key=lambda t: (
                        prefs.index(t.source.lower()) if t.source.lower() in prefs else len(prefs)
                    )
                )
                self.trigger_order.pop(p, None)
            for trig in mine:
                targets = self._auto_targets(trig)
                if targets is None:
                    self._emit(
                        "trigger removed",
                        f"{trig.source}'s ability has no legal target and is removed",
                        _rules("603.3d"),
                        p,
                    )
                    continue
                item = StackObject(
                    self._new_id(),
                    "triggered ability",
                    f"{trig.source} trigger",
                    p,
                    trig.effects,
                    targets,
                )
                self.stack.append(item)
                aimed = (
                    f" targeting {', '.join(self.target_label(t) for t in targets)}"
                    if targets
                    else ""
                )
                rules = _rules("117.5", "603.3")
                if several:
                    rules.append("603.3b")
                self._emit(
                    "trigger",
                    f"{trig.source}'s triggered ability is put on the stack{aimed}",
                    rules,
                    p,
                )
        return True

    def _auto_targets(self, trig: PendingTrigger) -> list[tuple[str, int]] | None:
        """Targets of a triggered ability: the first opponent, or an opponent's first creature."""
        out = []
        for effect in trig.effects:
            if not effect.target:
                continue
            choice = None
            if effect.target in ("any", "player"):
                opps = self.opponents(trig.controller)
                choice = ("player", opps[0]) if opps else None
            elif effect.target == "creature":
                creatures = sorted(
                    (o for o in self.battlefield if self.is_creature(o)),
                    key=lambda o: o.controller == trig.controller,
                )
                choice = ("object", creatures[0].id) if creatures else None
            elif effect.target == "spell":
                choice = ("object", self.stack[-1].id) if self.stack else None
            if choice is None:
                return None
            out.append(choice)
        return out

    # ---- turn structure ---------------------------------------------------------------------
    def _begin_step(self, step: Step) -> None:
        self.step = step
        ap = self.players[self.active]
        self._emit("step", f"{ap.name}'s {step.label} begins", _rules(step.rule))
        # 500.4: effects that last until this step expire as it begins.
        for obj in self.battlefield:
            ended = [m for m in obj.modifiers if m.step == step and m.player == self.active]
            if ended:
                obj.modifiers = [m for m in obj.modifiers if m not in ended]
                self._emit(
                    "expire",
                    f"the effect on {obj.label} that lasted until this step ends",
                    _rules("500.4"),
                )
        self._step_triggers(step)
        if step == Step.UNTAP:
            for obj in self.battlefield:
                if obj.controller == self.active:
                    obj.tapped = False
                    obj.sick = False
            self._emit(
                "turn-based action",
                f"{ap.name} untaps their permanents",
                _rules("502.3", "703.4c"),
                self.active,
            )
            self._emit(
                "no priority",
                "no player receives priority in the untap step",
                _rules("502.4", "117.3a"),
            )
            self._end_step()
            return
        if step == Step.DRAW:
            first_turn_skip = (
                self.turn == 1 and self.active == self.starting_player and len(self.players) == 2
            )
            if first_turn_skip:
                self._emit(
                    "turn-based action",
                    f"{ap.name} skips the draw of the first turn of a two-player game",
                    _rules("103.8a"),
                    self.active,
                )
            elif ap.in_game:
                self._draw(self.active, _rules("504.1", "703.4d"))
        elif step == Step.DECLARE_ATTACKERS:
            self.first_strike_step_done = False
            if ap.in_game:
                self.awaiting = ("attackers", self.active, 0)
                self._emit(
                    "turn-based action",
                    f"{ap.name} declares attackers",
                    _rules("508.1", "703.4i"),
                    self.active,
                )
                self._run_shortcut()
                return
        elif step == Step.DECLARE_BLOCKERS:
            defenders = {o.attacking for o in self.battlefield if o.attacking is not None}
            self.blockers_pending = [p for p in self.apnap() if p in defenders]
            if self.blockers_pending:
                self._next_blocker_declaration()
                return
        elif step in (Step.FIRST_STRIKE_DAMAGE, Step.COMBAT_DAMAGE):
            self._combat_damage(first_strike=step == Step.FIRST_STRIKE_DAMAGE)
        elif step == Step.CLEANUP:
            excess = len(ap.hand) - MAX_HAND_SIZE
            if ap.in_game and excess > 0:
                self.awaiting = ("discard", self.active, excess)
                self._emit(
                    "turn-based action",
                    f"{ap.name} has {len(ap.hand)} cards in hand and must discard {excess}",
                    _rules("514.1", "402.2"),
                    self.active,
                )
                return
            self._cleanup_after_discard()
            return
        self._give_priority(
            self.active, _rules("117.3a", _PRIORITY_RULE.get(step, step.rule)), " (start of step)"
        )

    def _cleanup_after_discard(self) -> None:
        for obj in self.battlefield:
            obj.damage = 0
            obj.modifiers = [m for m in obj.modifiers if m.until not in ("end of turn",)]
        self._emit(
            "turn-based action",
            'damage wears off and "until end of turn" effects end',
            _rules("514.2", "703.4p"),
        )
        if self._state_based_actions_pending() or self.pending:
            self.cleanup_again = True
            self._emit(
                "cleanup priority",
                "state-based actions or triggered abilities are waiting: players receive priority in "
                "this cleanup step, and another cleanup step follows",
                _rules("514.3a"),
            )
            self._give_priority(self.active, _rules("514.3a", "117.3a"))
            return
        self._emit(
            "no priority",
            "no player receives priority in the cleanup step",
            _rules("514.3", "704.3"),
        )
        self._end_step()

    def _state_based_actions_pending(self) -> bool:
        for pl in self.players:
            if pl.in_game and (pl.life <= 0 or pl.drew_from_empty):
                return True
        for obj in self.battlefield:
            if self.is_creature(obj):
                t = self.toughness(obj)
                if t <= 0 or obj.damage >= t or obj.deathtouch_damage:
                    return True
        return False

    def _end_step(self) -> None:
        """500.5: effects until the end of the step expire, then mana pools empty."""
        step = self.step
        if step == Step.END_OF_COMBAT:
            for obj in self.battlefield:
                obj.attacking = None
                obj.blocking = None
                obj.blocked = False
                obj.struck_first = False
                obj.modifiers = [m for m in obj.modifiers if m.until != "end of combat"]
            self._emit(
                "turn-based action",
                "all creatures are removed from combat",
                _rules("511.3", "500.5a"),
            )
        for pl in self.players:
            if not pl.pool.is_empty():
                lost = pl.pool.empty()
                self._emit(
                    "mana empties",
                    f"{pl.name}'s unspent mana {format_mana(lost)} empties from the mana pool",
                    _rules("500.5", "703.4q", "106.4"),
                    pl.index,
                )
        if self.game_over:
            return
        nxt = self._next_step(step)
        if nxt is None:
            self._begin_turn()
        else:
            self._begin_step(nxt)

    def _next_step(self, step: Step) -> Step | None:
        if step == Step.CLEANUP:
            if self.cleanup_again:
                self.cleanup_again = False
                return Step.CLEANUP
            return None
        if step == Step.DECLARE_ATTACKERS and not any(
            o.attacking is not None for o in self.battlefield
        ):
            self._emit(
                "skip",
                "no creature attacks: the declare blockers and combat damage steps are skipped",
                _rules("508.8"),
            )
            return Step.END_OF_COMBAT
        if step == Step.DECLARE_BLOCKERS:
            fighters = [
                o for o in self.battlefield if o.attacking is not None or o.blocking is not None
            ]
            if any(self.has(o, "first strike") for o in fighters):
                return Step.FIRST_STRIKE_DAMAGE
            return Step.COMBAT_DAMAGE
        if step == Step.DECLARE_BLOCKERS or step == Step.FIRST_STRIKE_DAMAGE:
            return Step.COMBAT_DAMAGE
        order = [s for s in Step if s != Step.FIRST_STRIKE_DAMAGE]
        return order[order.index(step) + 1]

    def _begin_turn(self) -> None:
        nxt = self._next_in_game(self.active)
        self.active = nxt
        self.turn += 1
        for pl in self.players:
            pl.lands_played = 0
        self.cleanup_again = False
        self._emit(
            "turn",
            f"{self.players[nxt].name}'s turn {self.turn} begins",
            _rules("500.1", "102.1"),
            nxt,
        )
        self._begin_step(Step.UNTAP)

    def _combat_damage(self, first_strike: bool) -> None:
        """510.1–2: each attacking and blocking creature assigns its damage, dealt at once."""
        assignments: list[tuple[GameObject, tuple[str, int], int]] = []
        fighters = [
            o for o in self.battlefield if o.attacking is not None or o.blocking is not None
        ]
        for obj in fighters:
            striker = self.has(obj, "first strike")
            if first_strike and not striker:
                continue
            if not first_strike and obj.struck_first:
                continue
            if first_strike:
                obj.struck_first = True
            power = self.power(obj)
            if power <= 0:
                continue
            if obj.attacking is not None:
                if not obj.blocked:
                    assignments.append((obj, ("player", obj.attacking), power))
                    continue
                blockers = [b for b in self.battlefield if b.blocking == obj.id]
                left = power
                for i, b in enumerate(blockers):
                    lethal = (
                        1 if self.has(obj, "deathtouch") else max(0, self.toughness(b) - b.damage)
                    )
                    amount = left if i == len(blockers) - 1 else min(left, lethal)
                    if amount:
                        assignments.append((obj, ("object", b.id), amount))
                    left -= amount
            else:
                attacker = self._object(obj.blocking) if obj.blocking is not None else None
                if attacker is not None and attacker.attacking is not None:
                    assignments.append((obj, ("object", attacker.id), power))
        label = "first-strike combat damage" if first_strike else "combat damage"
        rules = _rules("510.1", "510.2", "703.4m")
        if first_strike or any(o.struck_first for o in fighters):
            rules.append("702.7b")
        if not assignments:
            self._emit("turn-based action", f"no {label} is dealt", rules)
            return
        self._emit("turn-based action", f"{label} is assigned and dealt simultaneously", rules)
        for obj, recipient, amount in assignments:
            self._damage(recipient, amount, obj.label, self.has(obj, "deathtouch"), combat=True)

    # ---- queries ----------------------------------------------------------------------------
    @property
    def priority_player(self) -> str | None:
        """The name of the player with priority, or None."""
        return None if self.priority is None else self.players[self.priority].name

    def stack_names(self) -> list[str]:
        """The stack, bottom to top."""
        return [("face-down creature spell" if s.face_down else s.name) for s in self.stack]

    def zone(self, player: str, zone: str) -> list[GameObject]:
        """A player's hand, graveyard, library, or the permanents they control."""
        pl = self.player(player)
        if zone == "battlefield":
            return [o for o in self.battlefield if o.controller == pl.index]
        if zone in ("hand", "graveyard", "library"):
            return list(getattr(pl, zone))
        raise ScenarioError(f"unknown zone {zone!r}")

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain data (to compare states, e.g. after a rejected action)."""

        def obj(o: GameObject) -> tuple[Any, ...]:
            return (
                o.id,
                o.name,
                o.owner,
                o.controller,
                o.tapped,
                o.damage,
                o.deathtouch_damage,
                o.sick,
                o.face_down,
                o.attacking,
                o.blocking,
                o.blocked,
                o.struck_first,
                [(m.power, m.toughness, m.until, m.step, m.player) for m in o.modifiers],
            )

        return {
            "players": [
                (
                    p.name,
                    p.life,
                    [obj(o) for o in p.hand],
                    [o.id for o in p.library],
                    [obj(o) for o in p.graveyard],
                    dict(p.pool.amounts),
                    p.in_game,
                    p.lost,
                    p.drew_from_empty,
                    p.lands_played,
                )
                for p in self.players
            ],
            "battlefield": [obj(o) for o in self.battlefield],
            "stack": [
                (s.id, s.kind, s.name, s.controller, tuple(s.targets), s.face_down)
                for s in self.stack
            ],
            "turn": (self.turn, self.active, self.step, self.cleanup_again),
            "priority": (self.priority, self.passes),
            "awaiting": (self.awaiting, tuple(self.blockers_pending)),
            "triggers": (
                [(t.controller, t.source, t.condition) for t in self.pending],
                [(d.controller, d.source, d.condition.text) for d in self.delayed],
                {k: list(v) for k, v in self.trigger_order.items()},
            ),
            "shortcut": (
                None
                if self.shortcut is None
                else (
                    self.shortcut.phrase,
                    self.shortcut.player,
                    self.shortcut.turn,
                    self.shortcut.stop,
                ),
                sorted(self.holding),
            ),
            "game_over": (self.game_over, self.winner),
            "next_id": self._next_id,
        }

    # ---- legal actions (for random playouts) ------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """Every action the engine would accept now from the player who must act, with cards,
        targets and defenders given by id or index. Combat declarations are listed for none or
        one creature (larger declarations are legal too, but their number grows exponentially);
        the announcements a player may make at any time (concede, hold, order triggers,
        shortcuts) are not listed."""
        if self.game_over:
            return []
        return [a for a in self._candidate_actions() if self.is_legal(a)]

    def _candidate_actions(self) -> list[Action]:
        """What the acting player might try; :meth:`is_legal` decides, so no rule is stated here."""
        if self.awaiting is not None:
            kind, who, _ = self.awaiting
            name = self.players[who].name
            mine = [o for o in self.battlefield if o.controller == who]
            if kind == "attackers":
                out = [Action("attack", name)]
                for o in mine:
                    for d in self.opponents(who):
                        defender = self.players[d].name
                        out.append(Action("attack", name, attackers=((o.id, defender),)))
                return out
            if kind == "blockers":
                out = [Action("block", name)]
                attackers = [o for o in self.battlefield if o.attacking == who]
                for b in mine:
                    for a in attackers:
                        out.append(Action("block", name, blocks=((b.id, a.id),)))
                return out
            return [Action("discard", name, c.id) for c in self.players[who].hand]
        if self.priority is None:
            return []
        p = self.priority
        name = self.players[p].name
        out = [Action("pass", name)]
        for card in self.players[p].hand:
            if card.card.is_a("land"):
                out.append(Action("play_land", name, card.id))
                continue
            for targets in self._target_choices(card.card.effects):
                out.append(Action("cast", name, card.id, targets=targets))
            if card.card.morph is not None:
                out.append(Action("cast", name, card.id, face_down=True))
        for obj in self.battlefield:
            if obj.controller != p:
                continue
            if obj.face_down:
                out.append(Action("turn_face_up", name, obj.id))
                continue
            for i, ability in enumerate(obj.card.abilities):
                if ability.is_mana_ability:
                    out.append(Action("mana", name, obj.id, ability=i + 1))
                else:
                    for targets in self._target_choices(ability.effects):
                        out.append(Action("activate", name, obj.id, targets=targets, ability=i + 1))
        return out

    def _target_choices(self, effects: tuple[Effect, ...]) -> list[tuple[tuple[str, int], ...]]:
        choices: list[tuple[tuple[str, int], ...]] = [()]
        for effect in effects:
            if not effect.target:
                continue
            options: list[tuple[str, int]] = []
            if effect.target in ("any", "player"):
                options += [("player", p.index) for p in self.in_game()]
            if effect.target in ("any", "creature"):
                options += [("object", o.id) for o in self.battlefield if self.is_creature(o)]
            if effect.target == "spell":
                options += [("object", s.id) for s in self.stack if s.kind == "spell"]
            choices = [(*c, o) for c in choices for o in options]
        return choices

    def is_legal(self, action: Action) -> bool:
        """Whether the action would be accepted: the same validation as :meth:`perform`, without
        changing the game."""
        return self.why_illegal(action) is None

    def why_illegal(self, action: Action) -> IllegalAction | ScenarioError | None:
        """Why :meth:`perform` would refuse the action (the error citing the rules), or None."""
        try:
            self._validate(self.player(action.player).index, action)
        except (IllegalAction, ScenarioError) as err:
            return err
        return None


@dataclass(slots=True)
class _CastPlan:
    """A validated spell: what 601.2 moves, targets and pays once the game changes."""

    card: GameObject
    effects: tuple[Effect, ...]
    cost: ManaCost
    targets: list[tuple[str, int]]
    payment: list[tuple[GameObject, int]]
    face_down: bool


@dataclass(slots=True)
class _ActivatePlan:
    """A validated activated ability (602.2) of ``obj``: its index, targets and payment."""

    obj: GameObject
    index: int
    targets: list[tuple[str, int]]
    payment: list[tuple[GameObject, int]]


@dataclass(slots=True)
class _ManaPlan:
    """A validated mana ability (605.3a) of ``obj``."""

    obj: GameObject
    index: int


@dataclass(slots=True)
class _ManaCostPlan:
    """A validated special action on ``obj`` and the mana abilities that pay for it."""

    obj: GameObject
    payment: list[tuple[GameObject, int]]


# Each action kind: its validation (raises IllegalAction citing the rules, changes nothing) and
# the step that applies a validated action. perform, is_legal and legal_actions all use these.
_ACTIONS: dict[str, tuple[Any, Any]] = {
    "pass": (Game._check_pass, Game._apply_pass),
    "cast": (Game._check_cast, Game._apply_cast),
    "activate": (Game._check_activate, Game._apply_activate),
    "mana": (Game._check_mana, Game._apply_mana),
    "play_land": (Game._check_play_land, Game._apply_play_land),
    "turn_face_up": (Game._check_turn_face_up, Game._apply_turn_face_up),
    "attack": (Game._check_attack, Game._apply_attack),
    "block": (Game._check_block, Game._apply_block),
    "discard": (Game._check_discard, Game._apply_discard),
    "order_triggers": (Game._check_order_triggers, Game._apply_order_triggers),
    "hold": (Game._check_in_game, Game._apply_hold),
    "concede": (Game._check_concede, Game._apply_concede),
    "shortcut": (Game._check_shortcut, Game._apply_shortcut),
}

_TARGET_WORDS = {
    "any": "any target (a creature or a player)",
    "creature": "a target creature",
    "player": "a target player",
    "spell": "a target spell",
}
_AWAITING = {
    "attackers": "declares attackers",
    "blockers": "declares blockers",
    "discard": "discards down to the maximum hand size",
}
_AWAITING_RULE = {"attackers": "508.1", "blockers": "509.1", "discard": "514.1"}
_PRIORITY_RULE = {
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
