"""Triggered abilities (603): triggering, waiting, and going on the stack in APNAP order."""

from __future__ import annotations

from kb.engine.cards import Effect
from kb.engine.objects import Action, GameObject, PendingTrigger, StackObject, cite
from kb.engine.state import GameState
from kb.engine.steps import Step


class Triggers(GameState):
    """Triggered abilities (603): triggering, waiting, and going on the stack in APNAP order."""

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
            cite("603.2", "117.2a"),
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
            cite("603.3b"),
            p,
        )
