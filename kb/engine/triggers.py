"""Triggered abilities (603): triggering, waiting, and going on the stack in APNAP order."""

from __future__ import annotations

from dataclasses import replace

from kb.engine.cards import Effect, unquote
from kb.engine.objects import (
    Action,
    GameObject,
    IllegalAction,
    PendingTrigger,
    ScenarioError,
    StackObject,
    cite,
)
from kb.engine.state import GameState
from kb.engine.steps import Step


class Triggers(GameState):
    """Triggered abilities (603): triggering, waiting, and going on the stack in APNAP order."""

    def _trigger_event(
        self,
        event: str,
        controller: int,
        subject: GameObject | None = None,
        lookback: list[GameObject] | None = None,
    ) -> None:
        """Abilities that trigger on an event (603.2). For a leaves-the-battlefield event, the
        permanents that left in the same event are looked back at too (603.10a)."""
        watchers = self.battlefield
        if lookback:
            watchers = [*self.battlefield, *lookback]
        for obj in watchers:
            if obj.face_down or not obj.card.triggers:
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
                    or (event == "dies" and ev == "your creature dies" and mine)
                    or (event == "dies" and ev == "self dies" and subject is obj)
                )
                if hit and trig.condition.if_untapped and obj.tapped:
                    continue  # 603.4: the intervening condition is false, it doesn't trigger
                if hit:
                    looked_back = lookback is not None and obj in lookback
                    self._add_trigger(
                        obj.controller,
                        obj.card.name,
                        trig.effects,
                        trig.condition.text,
                        looked_back=looked_back,
                        origin=obj,
                        if_untapped=trig.condition.if_untapped,
                    )

    def _add_trigger(
        self,
        controller: int,
        source: str,
        effects: tuple[Effect, ...],
        condition: str,
        looked_back: bool = False,
        origin: GameObject | None = None,
        if_untapped: bool = False,
    ) -> None:
        self.pending.append(
            PendingTrigger(controller, source, effects, condition, origin, if_untapped)
        )
        rules = cite("603.2", "117.2a")
        note = ""
        if looked_back:
            rules = [*rules, "603.10a"]
            note = " (it left the battlefield in the same event: the game looks back in time)"
        self._emit(
            "triggered",
            f"{source}'s ability triggers ({condition}){note}; it waits to be put on the stack",
            rules,
            controller,
        )

    def _step_triggers(self, step: Step) -> None:
        for obj in [o for o in self.battlefield if o.card.triggers and not o.face_down]:
            for trig in obj.card.triggers:
                cond = trig.condition
                if cond.step == step and (cond.whose == "each" or self._is_active(obj.controller)):
                    if cond.if_untapped and obj.tapped:
                        continue  # 603.4: the intervening condition is false, it doesn't trigger
                    # "that player": the player whose step it is, the active player (500.2)
                    effects = tuple(
                        replace(e, scope=f"player {self.active}") if e.scope == "that player" else e
                        for e in trig.effects
                    )
                    self._add_trigger(
                        obj.controller,
                        obj.card.name,
                        effects,
                        cond.text,
                        origin=obj,
                        if_untapped=cond.if_untapped,
                    )
        if step == Step.UPKEEP:
            for card in self.players[self.active].exile:
                if card.exiled_as == "suspended" and card.counters.get("time", 0) > 0:
                    tick = Effect("time", "remove a time counter", amount=card.id)
                    self._add_trigger(
                        self.active,
                        card.name,
                        (tick,),
                        "at the beginning of your upkeep, if this card is suspended",
                    )
        for delayed in list(self.delayed):
            whose = delayed.condition.whose
            if delayed.condition.step == step and (
                whose != "your next" or delayed.controller == self.active
            ):
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
                self.trigger_order_turn.pop(p, None)
            for trig in mine:
                targets = self._auto_targets(trig)
                if targets is None:
                    self._emit(
                        "trigger removed",
                        f"{trig.source}'s ability has no legal target and is removed",
                        cite("603.3d"),
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
                    origin=trig.origin,
                    if_untapped=trig.if_untapped,
                )
                self.stack.append(item)
                aimed = (
                    f" targeting {', '.join(self.target_label(t) for t in targets)}"
                    if targets
                    else ""
                )
                rules = cite("117.5", "603.3")
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
        """Targets of a triggered ability, chosen by its controller as it is put on the stack
        (603.3d): those announced with ``targets … with <source>``, else the engine's default
        (the first opponent, or an opponent's first creature)."""
        announced = self.trigger_targets.get(trig.controller, {}).pop(trig.source.lower(), None)
        if announced is not None:
            try:
                origin = trig.origin.id if trig.origin is not None else None
                return self._choose_targets(
                    trig.effects, tuple(announced), origin, controller=trig.controller
                )
            except (IllegalAction, ScenarioError) as err:
                self._emit(
                    "note",
                    f"the announced targets of {trig.source}'s ability can't be chosen ({err}): "
                    "the default is used",
                    cite("603.3d"),
                    trig.controller,
                )
        out = []
        for effect in trig.effects:
            if not effect.target:
                continue
            choice = None
            if effect.target in ("any", "player"):
                opps = self.opponents(trig.controller)
                choice = ("player", opps[0]) if opps else None
            elif effect.target == "creature":
                colors = self._colors(trig.origin) if trig.origin is not None else ()  # type: ignore[attr-defined]
                creatures = sorted(
                    (
                        o
                        for o in self.battlefield
                        if self.is_creature(o)
                        and self._untargetable(o, trig.controller, colors) is None
                    ),
                    key=lambda o: o.controller == trig.controller,
                )
                choice = ("object", creatures[0].id) if creatures else None
            elif effect.target == "spell":
                choice = ("object", self.stack[-1].id) if self.stack else None
            if choice is None:
                return None
            out.append(choice)
        return out

    def _trigger_sources(self, p: int) -> set[str]:
        """The names of what may give player ``p`` triggered abilities: permanents they control
        with one, their delayed triggers, their suspended cards and their waiting triggers."""
        names = {o.name.lower() for o in self.battlefield.of(p) if o.card.triggers}
        names |= {d.source.lower() for d in self.delayed if d.controller == p}
        names |= {c.name.lower() for c in self.players[p].exile if c.exiled_as == "suspended"}
        names |= {t.source.lower() for t in self.pending if t.controller == p}
        return names

    def _check_order_triggers(self, p: int, action: Action) -> tuple[str, ...]:
        """603.3b: the order names two or more sources of the player's own triggered abilities,
        before those abilities are put on the stack (the order is chosen as they are)."""
        self._check_in_game(p, action)
        names = tuple(unquote(n) for n in action.names)
        if len(names) < 2:
            raise IllegalAction("orders triggers names two sources or more: A, B", "603.3b")
        sources = self._trigger_sources(p)
        unknown = [n for n in names if n.lower() not in sources]
        if unknown:
            raise IllegalAction(
                f"{unknown[0]} is not the source of a triggered ability "
                f"{self.players[p].name} controls",
                "603.3b",
            )
        stacked = {
            s.name.lower().removesuffix(" trigger")
            for s in self.stack
            if s.kind == "triggered ability" and s.controller == p
        }
        if sum(n.lower() in stacked for n in names) >= 2:
            raise IllegalAction(
                "those triggered abilities are already on the stack: their order is chosen as "
                "they are put on it",
                "603.3b",
            )
        return names

    def _apply_order_triggers(self, p: int, names: tuple[str, ...]) -> None:
        """603.3b: the order in which the player's next simultaneous triggers go on the stack;
        it lapses at the end of the next turn if no such batch came (:meth:`_lapse_orders`)."""
        self.trigger_order[p] = [n.lower() for n in names]
        self.trigger_order_turn[p] = self.turn
        self._emit(
            "choice",
            f"{self.players[p].name} will put their triggered abilities on the stack in this order: "
            + ", ".join(names),
            cite("603.3b"),
            p,
        )

    def _lapse_orders(self) -> None:
        """A turn begins: trigger orders announced before the previous turn lapse, unused."""
        for p, made in list(self.trigger_order_turn.items()):
            if made < self.turn - 1:
                self.trigger_order.pop(p, None)
                del self.trigger_order_turn[p]
                self._emit(
                    "note",
                    f"{self.players[p].name}'s announced order of triggered abilities lapses "
                    "unused",
                    cite("603.3b"),
                    p,
                )

    def _check_trigger_targets(self, p: int, action: Action) -> tuple[str, list[str]]:
        self._check_in_game(p, action)
        if not action.card or not action.targets:
            raise IllegalAction(
                "name the targets and the source: targets <A> with <source>", "603.3d"
            )
        source = unquote(str(action.card)).removesuffix(" trigger").removesuffix("'s ability")
        if source.lower() not in self._trigger_sources(p):
            raise IllegalAction(
                f"{source} is not the source of a triggered ability {self.players[p].name} "
                "controls",
                "603.3d",
            )
        for ref in action.targets:
            self._check_target_name(str(ref))
        return source, [str(t) for t in action.targets]

    def _check_target_name(self, ref: str) -> None:
        """An announced target names a player still in the game, a permanent or a spell."""
        name = unquote(ref)
        low = name.lower()
        player = next((q for q in self.players if q.name.lower() == low), None)
        if player is not None:
            if not player.in_game:
                raise IllegalAction(f"{player.name} has left the game", "603.3d", "800.4a")
            return
        if any(item.name.lower() == low for item in self.stack):
            return
        try:
            self.permanents_named(name)
        except IllegalAction:
            raise IllegalAction(
                f"{name} is neither a player in the game nor a permanent or a spell",
                "603.3d",
                "115.1",
            ) from None

    def _apply_trigger_targets(self, p: int, plan: tuple[str, list[str]]) -> None:
        """603.3d: the targets the player will choose for their next ability from that source."""
        source, targets = plan
        source = source.removesuffix(" trigger").removesuffix("'s ability")
        self.trigger_targets.setdefault(p, {})[source.lower()] = targets
        self._emit(
            "choice",
            f"{self.players[p].name} will choose {', '.join(targets)} as the target of "
            f"{source}'s triggered ability",
            cite("603.3d"),
            p,
        )
