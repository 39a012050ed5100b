"""Special actions (116): they don't use the stack; each has its own timing.

Here: playing a land (116.2a), turning a face-down creature face up (116.2b), Circling
Vultures' discard (116.2e), suspend (116.2f), companion (116.2g), foretell (116.2h) and plot
(116.2k). Stopping a delayed trigger (116.2c), ignoring a static ability's effect (116.2d), the
planar die (116.2i), conspiracies (116.2j) and unlocking a door (116.2m) are in
:mod:`~kb.engine.special_variants`.
"""

from __future__ import annotations

from kb.engine.mana import ManaCost
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
        if not self._is_active(p):
            raise IllegalAction(f"it isn't {pl.name}'s turn", "305.3", "116.2a")
        where = self.sorcery_timing_problem(p)
        if where:
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
        pl.lands_played += 1
        self._enter(
            card.card,
            p,
            said=lambda permanent: self._emit(
                "special action",
                f"{pl.name} plays {permanent.label} (a special action: it doesn't use the stack)",
                cite("116.2a", "305.1"),
                p,
            ),
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

    # ---- 116.2e-k: the special actions of particular cards ---------------------------------
    def _check_special(self, p: int, action: Action) -> ManaCostPlan:
        """Foretell (116.2h), plot (116.2k), suspend (116.2f), companion (116.2g) and
        Circling Vultures' discard (116.2e): each from its own zone, with its own timing."""
        what = action.kind
        rule = _SPECIAL_RULES[what]
        self._need_priority(p, rule)
        pl = self.players[p]
        if action.card is None:
            raise IllegalAction(f"no card named for {what}", rule)
        if what == "companion":
            card = pl.companion
            if pl.companion_used:  # checked first: the companion is in the hand by now
                raise IllegalAction(
                    f"{pl.name} already put their companion into their hand: once a game",
                    "116.2g",
                )
            if card is None or card.name.lower() != str(action.card).strip().lower():
                raise IllegalAction(f"{action.card} is not {pl.name}'s companion", "702.139a")
            self._check_main_phase_empty_stack(p, rule)
            return ManaCostPlan(card, self._payment_plan(p, COMPANION_COST))
        try:
            card = self._find_in_hand(p, action.card)
        except IllegalAction:
            raise IllegalAction(f"{action.card} is not in {pl.name}'s hand", rule) from None
        cdef = card.card
        if what == "foretell":
            if cdef.foretell is None:
                raise IllegalAction(f"{cdef.name} has no foretell", "702.143a")
            if not self._is_active(p):
                raise IllegalAction(
                    "a card is foretold only during its owner's turn", rule, "702.143a"
                )
            return ManaCostPlan(card, self._payment_plan(p, FORETELL_COST))
        if what == "plot":
            if cdef.plot is None:
                raise IllegalAction(f"{cdef.name} has no plot", "702.170a")
            if not self._is_active(p):
                raise IllegalAction(
                    "a card is plotted only during its owner's turn", rule, "702.170a"
                )
            self._check_main_phase_empty_stack(p, "702.170a")
            return ManaCostPlan(card, self._payment_plan(p, cdef.plot))
        if what == "suspend":
            if cdef.suspend is None:
                raise IllegalAction(f"{cdef.name} has no suspend", "702.62a")
            if not (cdef.is_a("instant") or "flash" in cdef.keywords):
                try:
                    self._check_sorcery_timing(p, cdef)
                except IllegalAction as err:
                    raise IllegalAction(
                        f"suspend needs a moment {cdef.name} could be cast: {err.message}",
                        rule,
                        "702.62a",
                    ) from None
            return ManaCostPlan(card, self._payment_plan(p, cdef.suspend[1]))
        if not cdef.discard_as_instant:
            raise IllegalAction(f"nothing lets {cdef.name} be discarded as a special action", rule)
        return ManaCostPlan(card, [])

    def _check_main_phase_empty_stack(self, p: int, rule: str) -> None:
        where = self.sorcery_timing_problem(p)
        if where:
            raise IllegalAction(
                f"this special action is taken in a main phase of the player's own turn with an "
                f"empty stack ({where})",
                rule,
            )

    def _apply_special(self, p: int, plan: ManaCostPlan, what: str) -> None:
        card = plan.obj
        pl = self.players[p]
        cdef = card.card
        rules = cite(_SPECIAL_RULES.get(what, "116.2e"), "116.3")
        if what == "companion":
            pl.companion = None
            pl.companion_used = True
            self._pay(p, COMPANION_COST, plan.payment, "the companion action")
            pl.hand.append(self._new_object(cdef, p))
            text = f"{pl.name} pays {{3}} and puts their companion {cdef.name} into their hand"
            rules.append("702.139a")
        elif what == "discard":
            rules = cite("116.2e", "116.3")
            self._discard(p, card, [*rules, "701.9a"])
            self._after_action(p, "116.3", adds_to_stack=False)
            return
        else:
            pl.hand.remove(card)
            exiled = self._new_object(cdef, p)
            exiled.exiled_turn = self.turn
            if what == "foretell":
                self._pay(p, FORETELL_COST, plan.payment, "foretelling")
                exiled.exiled_as = "foretold"
                exiled.face_down = True
                text = f"{pl.name} pays {{2}} and foretells a card: it is exiled face down"
                rules.append("702.143a")
            elif what == "plot":
                assert cdef.plot is not None
                self._pay(p, cdef.plot, plan.payment, "plotting")
                exiled.exiled_as = "plotted"
                text = f"{pl.name} plots {cdef.name}: it is exiled, to be cast on a later turn"
                rules.append("702.170a")
            else:
                assert cdef.suspend is not None
                count, cost = cdef.suspend
                self._pay(p, cost, plan.payment, "suspending")
                exiled.exiled_as = "suspended"
                exiled.counters["time"] = count
                plural = "s" if count != 1 else ""
                text = f"{pl.name} suspends {cdef.name}: it is exiled with {count} time counter{plural}"
                rules.append("702.62a")
            pl.exile.append(exiled)
        self._emit(
            "special action", f"{text} (a special action: it doesn't use the stack)", rules, p
        )
        self._after_action(p, "116.3", adds_to_stack=False)

    def _apply_foretell(self, p: int, plan: ManaCostPlan) -> None:
        self._apply_special(p, plan, "foretell")

    def _apply_plot(self, p: int, plan: ManaCostPlan) -> None:
        self._apply_special(p, plan, "plot")

    def _apply_suspend(self, p: int, plan: ManaCostPlan) -> None:
        self._apply_special(p, plan, "suspend")

    def _apply_companion(self, p: int, plan: ManaCostPlan) -> None:
        self._apply_special(p, plan, "companion")

    def _apply_discard_special(self, p: int, plan: ManaCostPlan) -> None:
        self._apply_special(p, plan, "discard")


FORETELL_COST = ManaCost(2)  # 702.143a
COMPANION_COST = ManaCost(3)  # 702.139a
_SPECIAL_RULES = {
    "foretell": "116.2h",
    "plot": "116.2k",
    "suspend": "116.2f",
    "companion": "116.2g",
    "discard_special": "116.2e",
}
