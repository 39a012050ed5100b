"""The state of a game (players, objects, zones) and the queries on it (rules 1xx-4xx).

:class:`GameState` holds what a snapshot shows; the other parts of the engine are mixins on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from kb.engine.cards import LIBRARY_CARD, CardDef, CardPool, unquote
from kb.engine.limits import MAX_REPEAT
from kb.engine.objects import (
    Action,
    Battlefield,
    DelayedTrigger,
    Event,
    GameObject,
    IllegalAction,
    PendingTrigger,
    Player,
    ScenarioError,
    Shortcut,
    StackObject,
)
from kb.engine.steps import Step

T = TypeVar("T")


class GameState:
    """The state of a game (players, objects, zones) and the queries on it (rules 1xx-4xx)."""

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
        self.battlefield = Battlefield()
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
        self.trigger_order_turn: dict[int, int] = {}  # the turn each order was announced
        self.holding: set[int] = set()
        self.shortcut: Shortcut | None = None
        self.cleanup_again = False
        self.first_strike_step_done = False
        self.game_over = False
        self.winner: int | None = None
        self.started = False
        self.events: list[Event] = []
        self.attachments = False  # whether any Aura or Equipment was ever on the battlefield
        self.attackers_declared = False  # 508.8: whether creatures were declared as attackers
        self.combat_return: int | None = None  # MTR 4.2: AP gets priority again in combat
        self.trigger_targets: dict[int, dict[str, list[str]]] = {}  # announced targets (603.3d)
        self.legend_choices: dict[tuple[int, str], str] = {}  # (player, name): old | new (704.5j)
        self.rewind: dict[str, Any] | None = None  # the game as the last shortcut began
        self.plan_memo: dict[Any, Any] | None = None  # payment plans while enumerating
        self._by_name = {p.name: p for p in self.players}
        self.one_defender = False  # 506.2a: the attacking player chooses one defending player
        self.defender: int | None = None  # that choice, for this combat
        self.damage_assignment: dict[int, Any] = {}  # announced combat damage (510.1c-d)
        self.damage_pending: list[int] = []  # players still to announce it, in order (510.1)
        self.resolution_choices: dict[int, dict[str, Any]] = {}  # by stack item (608.2d)
        self.restrictions = False  # whether a "creatures can't attack" permanent was ever here
        self.ignoring: dict[tuple[int, int], int] = {}  # (player, permanent): turn (116.2d)
        self.planechase = False  # a Planechase game (901): the planar die (116.2i)
        self.planar_rolls = (0, 0, 0)  # (turn, player, rolls that turn)
        self.conspiracies: list[GameObject] = []  # the command zone's conspiracies (905.4a)
        self.rooms = False  # whether a Room was ever on the battlefield (709.5)
        self.group_rewind: tuple[dict[str, Any], Action, int] | None = None  # MTR 4.2 group
        self.teams: list[list[int]] | None = None  # shared team turns (117.6, 805)
        self.team_of: dict[int, int] = {}
        self.legends = False  # whether a legendary permanent was ever on the battlefield
        self.anthems = False  # whether a permanent with an anthem was ever on the battlefield
        self.tokens = False  # whether a token was ever on the battlefield (704.5d)
        self.actions_taken = 0
        # continuous effects (611, 613; kb.engine.continuous) and replacement effects (614-616)
        self.layered = False  # whether a layered effect beyond an anthem was ever in the game
        self.refreshing = False
        self.continuous: list[Any] = []  # from resolved spells and abilities
        self.base_controllers: dict[int, int] = {}  # controller before control effects
        self.layer_chars: dict[int, Any] = {}  # the layers' last result, by permanent
        self.layer_inputs: Any = None  # what that result was computed from
        self.layer_views: dict[Any, Any] = {}  # characteristics made into card definitions
        self.shields: list[Any] = []  # replacement and prevention effects of resolutions
        self.replace_first: dict[int, str] = {}  # 616.1: the source a player applies first
        self.shield_first: dict[int, str] = {}  # 615.7: the source whose damage a shield takes
        self.replacing: set[int] = set()  # effects applying now: not again to their own (614.5)
        self.listed_actions: dict[Any, Action] = {}  # listed actions made once (they are values)
        self._next_id = 1

    def player(self, name: str) -> Player:
        """A player by name (case-insensitive)."""
        found = self._by_name.get(name)
        if found is not None:
            return found
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

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

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
        """The next player in turn order still in the game (with teams: of the next team)."""
        n = len(self.players)
        teams = self.teams is not None
        for k in range(1, n + 1):
            candidate = (index + k) % n
            if self.players[candidate].in_game and not (
                teams and self._same_team(candidate, index)
            ):
                return candidate
        return index

    def _same_team(self, p: int, q: int | None) -> bool:
        """Whether two different players are teammates (shared team turns, 805)."""
        return (
            self.teams is not None
            and q is not None
            and p != q
            and self.team_of[p] == self.team_of[q]
        )

    def _is_active(self, p: int) -> bool:
        """An active player: the one whose turn it is, or with shared team turns, any player of
        the active team (805.4a)."""
        return p == self.active or self._same_team(p, self.active)

    def apnap(self) -> list[int]:
        """Players in APNAP order (101.4): the active player, then the others in turn order."""
        n = len(self.players)
        return [
            (self.active + k) % n for k in range(n) if self.players[(self.active + k) % n].in_game
        ]

    def opponents(self, index: int) -> list[int]:
        """Opponents still in the game, in turn order after the player (102.2, 102.3)."""
        n = len(self.players)
        if self.teams is None:
            return [(index + k) % n for k in range(1, n) if self.players[(index + k) % n].in_game]
        return [
            (index + k) % n
            for k in range(1, n)
            if self.players[(index + k) % n].in_game and not self._same_team((index + k) % n, index)
        ]

    def _players_named(
        self,
        effect: Any,
        p: int,
        target: tuple[str, int] | None,
        default: list[int] | None,
    ) -> list[int] | None:
        """The players an effect of player ``p`` names: its target, each opponent, each player
        (in APNAP order, 101.4) or "that player" of a trigger (scope ``player N``); else
        ``default``."""
        scope = effect.scope or ""
        if target is not None:
            return [target[1]]
        if scope == "each opponent":
            return self.opponents(p)
        if scope == "each player":
            return self.apnap()
        if scope.startswith("player "):
            return [int(scope.split()[1])]
        return default

    def has(self, obj: GameObject, keyword: str) -> bool:
        """Whether a permanent has a keyword: its own, gained until some point, or granted by an
        attached Aura or Equipment (a face-down permanent has no abilities, 708.2)."""
        if obj.face_down:
            return False
        if self.layered:  # an effect that removed all abilities removes those granted before it
            return self._has_layered(obj, keyword)
        if keyword in obj.card.keywords or keyword in obj.granted:
            return True
        if obj.modifiers and any(keyword in m.keywords for m in obj.modifiers):
            return True
        return bool(self.attachments) and any(
            keyword in bonus[2] for bonus in self._attached_bonuses(obj)
        )

    def _has_layered(self, obj: GameObject, keyword: str) -> bool:
        lost = self._lost_at(obj)  # type: ignore[attr-defined]
        if keyword in obj.card.keywords or (keyword in obj.granted and not lost):
            return True
        if any(keyword in m.keywords and m.stamp > lost for m in obj.modifiers):
            return True
        return any(
            keyword in aura.card.attached_bonus[2]
            for aura in self.battlefield
            if aura.attached_to == obj.id
            and aura.card.attached_bonus
            and (aura.stamp or aura.id) > lost  # its timestamp: new when attached (613.7e)
        )

    def is_creature(self, obj: GameObject) -> bool:
        """Whether a permanent is a creature (a face-down spell or permanent is a 2/2 creature, 702.37a, 702.37c)."""
        return obj.face_down or obj.card.kind_flags[0]

    def power(self, obj: GameObject) -> int:
        """Power after counters, modifiers and static abilities (613.4)."""
        if self.layered:
            return self._layered_pt(obj)[0]  # type: ignore[attr-defined]
        base = 2 if obj.face_down else obj.card.power or 0
        return (
            base
            + self._counter_bonus(obj)
            + sum(m.power for m in obj.modifiers)
            + self._anthem(obj)[0]
            + sum(b[0] for b in self._attached_bonuses(obj))
        )

    def toughness(self, obj: GameObject) -> int:
        """Toughness after counters, modifiers and static abilities (613.4)."""
        if self.layered:
            return self._layered_pt(obj)[1]  # type: ignore[attr-defined]
        base = 2 if obj.face_down else obj.card.toughness or 0
        return (
            base
            + self._counter_bonus(obj)
            + sum(m.toughness for m in obj.modifiers)
            + self._anthem(obj)[1]
            + sum(b[1] for b in self._attached_bonuses(obj))
        )

    @staticmethod
    def _counter_bonus(obj: GameObject) -> int:
        """+1/+1 and -1/-1 counters (122.1a, 613.4c)."""
        counters = obj.counters
        if not counters:
            return 0
        return counters.get("+1/+1", 0) - counters.get("-1/-1", 0)

    def _attached_bonuses(self, obj: GameObject) -> list[tuple[int, int, frozenset[str]]]:
        """The static bonuses of the Auras and Equipment attached to ``obj`` (303.4, 301.5)."""
        if not self.attachments:
            return []
        out = []
        for other in self.battlefield:
            bonus = other.card.attached_bonus
            if bonus and other.attached_to == obj.id and not other.face_down:
                out.append(bonus)
        return out

    def _anthem(self, obj: GameObject) -> tuple[int, int]:
        if not self.anthems:
            return 0, 0
        p = t = 0
        for other in self.battlefield:
            if other.card.anthem and not other.face_down and other.controller == obj.controller:
                p += other.card.anthem[0]
                t += other.card.anthem[1]
        return p, t

    def _emit(
        self, kind: str, text: str, rules: list[str], player: int | None = None, **data: Any
    ) -> Event:
        events = self.events
        players = self.players
        # Positional arguments: several times faster than keywords for a slots dataclass, and
        # every action records a few events.
        if self.started:
            event = Event(
                len(events) + 1,  # seq
                kind,
                text,
                rules,
                None if player is None else players[player].name,  # player
                self.turn,
                players[self.active].name,  # active
                self.step._value_,  # step
                data,
            )
        else:
            name = None if player is None else players[player].name
            event = Event(len(events) + 1, kind, text, rules, name, self.turn, None, "", data)
        events.append(event)
        if self.layered and not self.refreshing:  # the layers follow every change (613.5)
            self._refresh_layers()  # type: ignore[attr-defined]
        return event

    def trace_text(self, events: list[Event] | None = None) -> str:
        """The trace as text, one event per line."""
        return "\n".join(e.line() for e in (self.events if events is None else events))

    def set_library_count(self, player: str, count: int) -> None:
        """A library of ``count`` unknown cards (at most :data:`~kb.engine.limits.MAX_REPEAT`:
        each is an object)."""
        if not 0 <= count <= MAX_REPEAT:
            raise ScenarioError(f"library {count}: a library holds 0 to {MAX_REPEAT:,} cards here")
        owner = self.player(player)
        owner.library = [self._new_object(LIBRARY_CARD, owner.index) for _ in range(count)]

    def _split_owner(self, ref: str) -> tuple[int | None, str]:
        for pl in self.players:
            prefix = pl.name.lower() + "'s "
            if ref.lower().replace("’", "'").startswith(prefix):
                return pl.index, ref[len(prefix) :].strip()
        return None, ref.strip()

    def find_permanent(self, ref: str | int, controller: int | None = None) -> GameObject:
        """The first permanent with that name (or id), optionally of one controller."""
        return self.permanents_named(ref, controller)[0]

    def permanents_named(self, ref: str | int, controller: int | None = None) -> list[GameObject]:
        """Every permanent with that name (or the one with that id), in battlefield order,
        optionally of one controller; raises :class:`IllegalAction` when there is none."""
        if isinstance(ref, int):
            obj = self._object(ref)
            if obj is None:
                raise IllegalAction(f"object #{ref} is not on the battlefield", "400.7")
            if controller not in (None, obj.controller):
                raise IllegalAction(
                    f"{obj.label} is controlled by {self.players[obj.controller].name}, "
                    f"not {self.players[controller].name}",
                    "110.2",
                )
            return [obj]
        who, name = self._split_owner(unquote(ref))
        if who is not None:
            controller = who
        low = name.lower()
        found = [
            obj
            for obj in self.battlefield
            if obj.name.lower() == low and controller in (None, obj.controller)
        ]
        if self.layered:  # a copy is also found by its own card's name (Clone): first
            mine = [
                obj
                for obj in self.battlefield
                if obj.copied is not None
                and obj.printed is not None
                and obj.printed.name.lower() == low
                and controller in (None, obj.controller)
            ]
            found = list(
                dict.fromkeys(
                    [
                        *mine,
                        *(o for o in found if o.copied is None),
                        *(o for o in found if o.copied),
                    ]
                )
            )
        if found:
            return found
        whose = f"{self.players[controller].name}'s " if controller is not None else ""
        raise IllegalAction(
            f"there is no {name} on {whose or 'the '}battlefield".replace(
                "'s battlefield", "'s side of the battlefield"
            ),
            "110.1",
        )

    def pick_permanent(
        self, ref: str | int, controller: int | None, check: Callable[[GameObject], T]
    ) -> T:
        """The first permanent of that name the action can use: ``check`` raises
        :class:`IllegalAction` for one it can't use (tapped, already declared ...). The action is
        refused only when no permanent of that name can be used, with the first one's reason."""
        first: IllegalAction | None = None
        for obj in self.permanents_named(ref, controller):
            try:
                return check(obj)
            except IllegalAction as err:
                first = first or err
        assert first is not None
        try:
            raise first
        finally:
            first = None  # no cycle through this frame: the error is freed when dropped

    def _find_in_hand(self, p: int, ref: str | int) -> GameObject:
        hand = self.players[p].hand
        if isinstance(ref, int):
            for obj in hand:
                if obj.id == ref:
                    return obj
        else:
            name = unquote(ref).lower()
            for obj in hand:
                if obj.name.lower() == name:
                    return obj
            # "casts Shock targetting Bob": words the language doesn't know, not a card's name
            for obj in sorted(hand, key=lambda o: -len(o.name)):
                if name.startswith(obj.name.lower() + " "):
                    extra = unquote(ref)[len(obj.name) :].strip()
                    raise IllegalAction(
                        f"unknown words {extra!r} after {obj.name} (a cast reads: casts <card> "
                        "[from exile] [face down] [choosing mode N] [targeting A, B])",
                        "601.2a",
                    )
        raise IllegalAction(f"{ref} is not in {self.players[p].name}'s hand", "601.2a")

    def _object(self, oid: int) -> GameObject | None:
        """The permanent with this id, or None."""
        return self.battlefield.get(oid)

    def _stack_item(self, oid: int) -> StackObject | None:
        for item in self.stack:
            if item.id == oid:
                return item
        return None

    @property
    def priority_player(self) -> str | None:
        """The name of the player with priority, or None."""
        return None if self.priority is None else self.players[self.priority].name

    def stack_names(self) -> list[str]:
        """The stack, bottom to top."""
        return [
            ("face-down creature spell" if s.face_down else s.name) + (" (copy)" if s.copy else "")
            for s in self.stack
        ]

    def zone(self, player: str, zone: str) -> list[GameObject]:
        """A player's hand, graveyard, library, or the permanents they control."""
        pl = self.player(player)
        if zone == "battlefield":
            return list(self.battlefield.of(pl.index))
        if zone in ("hand", "graveyard", "library", "exile"):
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
                o.also_blocking,
                o.blocked,
                o.struck_first,
                [
                    (m.power, m.toughness, m.until, m.step, m.player, sorted(m.keywords))
                    for m in o.modifiers
                ],
                dict(o.counters),
                o.attached_to,
                o.stamp,
                o.token,
                o.loyalty_turn,
                o.exiled_turn,
                o.exiled_as,
                o.copy,
                o.unlocked,
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
                    p.poison,
                    [obj(o) for o in p.exile],
                    p.companion.id if p.companion else None,
                    p.companion_used,
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
            "choices": (
                self.attackers_declared,
                self.combat_return,
                self.one_defender,
                self.defender,
                {k: dict(v) for k, v in self.trigger_targets.items()},
                dict(self.legend_choices),
            ),
            "variants": (
                dict(self.ignoring),
                self.planar_rolls,
                [obj(c) for c in self.conspiracies],
                [(d.source, d.stop_cost, d.stopper) for d in self.delayed],
                {k: dict(v) for k, v in self.resolution_choices.items()},
            ),
            "layers": (
                [(e.stamp, e.affected, e.until) for e in self.continuous],
                [(s.name, s.stamp, s.used, s.remaining) for s in self.shields],
                dict(self.replace_first),
                dict(self.shield_first),
                dict(self.base_controllers),
            ),
            "next_id": self._next_id,
        }

    def sorcery_timing_problem(self, p: int) -> str | None:
        """Why player ``p`` may not act at sorcery speed now (307.1: their own main phase with an
        empty stack), or None when they may; the reason reads in an error message."""
        if not self._is_active(p):
            return f"it is {self.players[self.active].name}'s turn"
        if self.stack:
            return "the stack isn't empty"
        if not self.step.is_main:
            return f"it is the {self.step.label}"
        return None

    def _check_in_game(self, p: int, action: Action) -> None:
        """Choices and announcements need no priority, only a player still in the game."""
        if not self.players[p].in_game:
            raise IllegalAction(f"{self.players[p].name} has left the game", "800.4a", "104.3a")
