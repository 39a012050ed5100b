"""The special actions of effects and game variants (116.2c, 116.2d, 116.2i, 116.2j, 116.2m).

Each has its own timing, checked before anything changes, and a refusal citing the rule:

- 116.2c: stopping a delayed triggered ability by paying what its effect allows (Quenchable
  Fire's {U}) any time the player has priority, as long as the effect allows it (before the
  ability triggers);
- 116.2d: paying to ignore a static ability's effect for a duration (here "until end of turn"),
  any time the player has priority;
- 116.2i (901.9): rolling the planar die in a Planechase game, with priority and an empty stack
  in a main phase of the player's turn, for {N} where N is the number of earlier rolls this turn.
  Planes are not modelled: the face rolled is given, and chaos or planeswalking only says so;
- 116.2j (905.4a): turning a face-down conspiracy in the command zone face up, any time the
  player has priority (its effect is not modelled);
- 116.2m (709.5e): paying a Room's locked door's mana cost to unlock it, with priority and an
  empty stack in a main phase of the player's turn.
"""

from __future__ import annotations

from dataclasses import replace

from kb.engine.cards import Effect, unquote
from kb.engine.mana import ManaCost, parse_cost
from kb.engine.objects import (
    Action,
    DelayedTrigger,
    GameObject,
    IllegalAction,
    StackObject,
    cite,
)
from kb.engine.state import GameState

PLANAR_FACES = ("blank", "chaos", "planeswalk")


class VariantSpecialActions(GameState):
    """116.2c, d, i, j and m: special actions of effects, Planechase, Conspiracy and Rooms."""

    # ---- 116.2c: stop a delayed triggered ability ---------------------------------------------
    def _check_stop_effect(self, p: int, action: Action) -> tuple[DelayedTrigger, list]:
        self._need_priority(p, "116.2c")
        name = unquote(str(action.card or "")).lower()
        found = [d for d in self.delayed if d.source.lower() == name and d.stop_cost is not None]
        if not found:
            raise IllegalAction(
                f"no effect of {action.card} waits to trigger that a player may stop: it can be "
                "stopped only as long as the effect allows (before it triggers)",
                "116.2c",
            )
        mine = [d for d in found if d.stopper in (None, p)]
        if not mine:
            raise IllegalAction(
                f"only {self.players[found[0].stopper].name} may pay to stop {found[0].source}'s "
                "effect",
                "116.2c",
            )
        delayed = mine[0]
        assert delayed.stop_cost is not None
        return delayed, self._payment_plan(p, delayed.stop_cost)

    def _apply_stop_effect(self, p: int, plan: tuple[DelayedTrigger, list]) -> None:
        delayed, payment = plan
        assert delayed.stop_cost is not None
        self.delayed.remove(delayed)
        self._emit(
            "special action",
            f"{self.players[p].name} pays {delayed.stop_cost} so that {delayed.source}'s delayed "
            f"ability ({delayed.condition.text}) won't trigger (a special action: it doesn't use "
            "the stack)",
            cite("116.2c", "116.3"),
            p,
        )
        self._pay(p, delayed.stop_cost, payment, f"stopping {delayed.source}'s effect")
        self._after_action(p, "116.3", adds_to_stack=False)

    def _make_stoppable(self, delayed: DelayedTrigger, effect: Effect, item: StackObject) -> None:
        """Quenchable Fire: "that player" is the spell's target player, who may pay the cost to
        stop the delayed ability before it triggers (116.2c)."""
        player = next((t[1] for t in item.targets if t[0] == "player"), None)
        delayed.stop_cost = parse_cost(effect.counter)
        delayed.stopper = player
        if player is not None:
            delayed.effects = tuple(
                replace(e, scope=f"player {player}") if e.scope == "that player" else e
                for e in delayed.effects
            )

    # ---- 116.2d: ignore a static ability's effect until end of turn ------------------------
    def _attack_restriction(self, p: int) -> GameObject | None:
        """A permanent whose static ability says creatures can't attack, not ignored by ``p``
        this turn (508.1c checks such restrictions)."""
        if not self.restrictions:
            return None
        for obj in self.battlefield:
            if (
                obj.card.no_attacks
                and not obj.face_down
                and self.ignoring.get((p, obj.id)) != self.turn
            ):
                return obj
        return None

    def _check_ignore_effect(self, p: int, action: Action) -> tuple[GameObject, list]:
        self._need_priority(p, "116.2d")
        if action.card is None:
            raise IllegalAction("name the permanent whose effect is ignored", "116.2d")

        def usable(obj: GameObject) -> tuple[GameObject, list]:
            cost = obj.card.ignore_cost
            if cost is None or obj.face_down:
                raise IllegalAction(
                    f"{obj.label} has no static ability whose effect a player may pay to ignore",
                    "116.2d",
                )
            if self.ignoring.get((p, obj.id)) == self.turn:
                raise IllegalAction(
                    f"{self.players[p].name} already ignores {obj.label}'s effect this turn",
                    "116.2d",
                )
            return obj, self._payment_plan(p, cost)

        return self.pick_permanent(action.card, None, usable)

    def _apply_ignore_effect(self, p: int, plan: tuple[GameObject, list]) -> None:
        obj, payment = plan
        cost = obj.card.ignore_cost
        assert cost is not None
        self.ignoring[(p, obj.id)] = self.turn
        self._emit(
            "special action",
            f"{self.players[p].name} pays {cost} to ignore the effect of {obj.label}'s static "
            "ability until end of turn (a special action: it doesn't use the stack)",
            cite("116.2d", "116.3"),
            p,
        )
        self._pay(p, cost, payment, f"ignoring {obj.label}'s effect")
        self._after_action(p, "116.3", adds_to_stack=False)

    # ---- 116.2i: the planar die ---------------------------------------------------------------
    def _check_planar_die(self, p: int, action: Action) -> tuple[str, ManaCost, list]:
        if not self.planechase:
            raise IllegalAction(
                "the planar die is rolled only in a Planechase game ('option: planechase')",
                "116.2i",
                "901.9",
            )
        self._need_priority(p, "116.2i")
        where = self.sorcery_timing_problem(p)
        if where:
            raise IllegalAction(
                "the planar die is rolled by the active player with priority and an empty stack "
                f"during a main phase of their turn ({where})",
                "116.2i",
                "901.9",
            )
        face = action.phrase or "blank"
        if face not in PLANAR_FACES:
            raise IllegalAction(
                f"the planar die shows {', '.join(PLANAR_FACES)}, not {face!r}", "901.3"
            )
        cost = ManaCost(self._planar_rolls(p))
        return face, cost, self._payment_plan(p, cost)

    def _planar_rolls(self, p: int) -> int:
        turn, player, count = self.planar_rolls
        return count if (turn, player) == (self.turn, p) else 0

    def _apply_planar_die(self, p: int, plan: tuple[str, ManaCost, list]) -> None:
        face, cost, payment = plan
        n = self._planar_rolls(p)
        self.planar_rolls = (self.turn, p, n + 1)
        paid = f"pays {cost} and " if n else ""
        result = {
            "blank": "a blank face: nothing happens",
            "chaos": "the chaos symbol: chaos ensues (the engine models no planes, so nothing "
            "more happens)",
            "planeswalk": "the Planeswalker symbol: the planeswalking ability triggers (the "
            "engine models no planes, so nothing more happens)",
        }[face]
        rules = cite("116.2i", "901.9", "116.3")
        rules.append({"blank": "901.9a", "chaos": "901.9b", "planeswalk": "901.9c"}[face])
        self._emit(
            "special action",
            f"{self.players[p].name} {paid}rolls the planar die (roll {n + 1} this turn): "
            f"{result} (a special action: it doesn't use the stack)",
            rules,
            p,
        )
        if n:
            self._pay(p, cost, payment, "rolling the planar die")
        self._after_action(p, "116.3", adds_to_stack=False)

    # ---- 116.2j: a face-down conspiracy --------------------------------------------------------
    def _check_reveal_conspiracy(self, p: int, action: Action) -> GameObject:
        self._need_priority(p, "116.2j")
        name = unquote(str(action.card or "")).lower()
        mine = [c for c in self.conspiracies if c.controller == p and c.name.lower() == name]
        if not mine:
            raise IllegalAction(
                f"{self.players[p].name} controls no conspiracy named {action.card} in the "
                "command zone",
                "116.2j",
                "905.4a",
            )
        down = [c for c in mine if c.face_down]
        if not down:
            raise IllegalAction(f"{mine[0].name} is already face up", "116.2j", "905.4a")
        return down[0]

    def _apply_reveal_conspiracy(self, p: int, card: GameObject) -> None:
        card.face_down = False
        named = f", revealing the card it names: {card.named}" if card.named else ""
        self._emit(
            "special action",
            f"{self.players[p].name} turns the conspiracy {card.name} face up in the command "
            f"zone{named} (a special action: it doesn't use the stack)",
            cite("116.2j", "905.4a", "702.106", "116.3"),
            p,
        )
        self._after_action(p, "116.3", adds_to_stack=False)

    # ---- 116.2m: unlock a Room's door -----------------------------------------------------------
    def _check_unlock(self, p: int, action: Action) -> tuple[GameObject, list]:
        self._need_priority(p, "116.2m")
        door = unquote(str(action.card or "")).lower()
        rooms = [
            o
            for o in self.battlefield
            if o.card.door is not None and o.card.door[0].lower() == door
        ]
        if not rooms:
            raise IllegalAction(f"no permanent has a door named {action.card}", "116.2m", "709.5e")
        mine = [o for o in rooms if o.controller == p]
        if not mine:
            raise IllegalAction(
                f"{rooms[0].label} is controlled by {self.players[rooms[0].controller].name}",
                "116.2m",
                "709.5e",
            )
        locked = [o for o in mine if not o.unlocked]
        if not locked:
            raise IllegalAction(f"the door {mine[0].card.door[0]} is already unlocked", "709.5e")
        where = self.sorcery_timing_problem(p)
        if where:
            raise IllegalAction(
                "a door is unlocked with priority and an empty stack during a main phase of the "
                f"player's turn ({where})",
                "116.2m",
                "709.5e",
            )
        room = locked[0]
        assert room.card.door is not None
        return room, self._payment_plan(p, room.card.door[1])

    def _apply_unlock(self, p: int, plan: tuple[GameObject, list]) -> None:
        room, payment = plan
        assert room.card.door is not None
        door, cost = room.card.door
        room.unlocked = True
        self._emit(
            "special action",
            f"{self.players[p].name} pays the unlock cost {cost} and unlocks the door {door} of "
            f"{room.label} (a special action: it doesn't use the stack)",
            cite("116.2m", "709.5e", "116.3"),
            p,
        )
        self._pay(p, cost, payment, f"unlocking {door}")
        self._after_action(p, "116.3", adds_to_stack=False)

    # ---- what legal_actions lists ----------------------------------------------------------
    def _variant_special_candidates(self, p: int) -> list[Action]:
        """The special actions of this module the player might take now (checks decide)."""
        name = self.players[p].name
        out: list[Action] = []
        for d in self.delayed:
            if d.stop_cost is not None and d.stopper in (None, p):
                out.append(Action("stop_effect", name, d.source))
        if self.restrictions:
            for obj in self.battlefield:
                if obj.card.ignore_cost is not None:
                    out.append(Action("ignore_effect", name, obj.id))
        if self.planechase and p == self.active:
            out += [Action("planar_die", name, phrase=face) for face in PLANAR_FACES]
        for card in self.conspiracies:
            if card.controller == p and card.face_down:
                out.append(Action("reveal_conspiracy", name, card.name))
        if self.rooms:
            for obj in self.battlefield:
                if obj.card.door is not None and obj.controller == p and not obj.unlocked:
                    out.append(Action("unlock", name, obj.card.door[0]))
        return out
