"""Special actions (116): they don't use the stack; each has its own timing."""

from __future__ import annotations

from kb.engine.objects import Action, GameObject, IllegalAction, ManaCostPlan, cite
from kb.engine.state import GameState


class SpecialActions(GameState):
    """Special actions (116): they don't use the stack; each has its own timing."""

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
            cite("116.2a", "305.1"),
            p,
        )
        self._after_action(p, "116.3", adds_to_stack=False)

    def _check_turn_face_up(self, p: int, action: Action) -> ManaCostPlan:
        """702.37e: any time you have priority, pay the morph cost of your face-down permanent."""
        self._need_priority(p, "116.2b")
        if action.card is None:
            raise IllegalAction("no permanent named: which one is turned face up?", "702.37e")
        return self.pick_permanent(action.card, p, lambda obj: self._check_face_up_on(p, obj))

    def _check_face_up_on(self, p: int, obj: GameObject) -> ManaCostPlan:
        if not obj.face_down:
            raise IllegalAction(f"{obj.label} is not face down", "702.37e")
        if obj.card.morph is None:
            raise IllegalAction(f"{obj.card.name} has no morph cost", "702.37e")
        return ManaCostPlan(obj, self._payment_plan(p, obj.card.morph))

    def _apply_turn_face_up(self, p: int, plan: ManaCostPlan) -> None:
        obj = plan.obj
        assert obj.card.morph is not None
        self._emit(
            "special action",
            f"{self.players[p].name} turns {obj.label} face up (a special action: it doesn't use the stack)",
            cite("116.2b", "702.37e"),
            p,
        )
        self._pay(p, obj.card.morph, plan.payment, f"the morph cost of {obj.card.name}")
        obj.face_down = False
        self._after_action(p, "116.3", adds_to_stack=False)
