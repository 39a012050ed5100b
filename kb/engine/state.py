"""The state of a game (players, objects, zones) and the queries on it (rules 1xx-4xx).

:class:`GameState` holds what a snapshot shows; the other parts of the engine are mixins on it.
"""

from __future__ import annotations

from typing import Any

from kb.engine.cards import LIBRARY_CARD, CardDef, CardPool
from kb.engine.objects import (
    Action,
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

    def _check_in_game(self, p: int, action: Action) -> None:
        """Choices and announcements need no priority, only a player still in the game."""
        if not self.players[p].in_game:
            raise IllegalAction(f"{self.players[p].name} has left the game", "800.4a", "104.3a")
