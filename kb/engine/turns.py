"""Turn structure (500-514): steps and phases, their turn-based actions, and moving between them."""

from __future__ import annotations

from itertools import pairwise

from kb.engine.mana import format_mana
from kb.engine.objects import (
    MAX_HAND_SIZE,
    PRIORITY_RULE,
    Action,
    Event,
    GameObject,
    IllegalAction,
    ScenarioError,
    cite,
)
from kb.engine.state import GameState
from kb.engine.steps import Step


class Turns(GameState):
    """Turn structure (500-514): steps and phases, their turn-based actions, and moving between them."""

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
        if step == Step.DRAW and turn == 1 and (len(self.players) == 2 or self.teams is not None):
            raise ScenarioError(
                "the starting player (or team) skips the draw step of the first turn (103.8a, "
                "103.8b): start in another step"
            )
        self.started = True
        self.step = step
        self._emit(
            "turn",
            f"{self.players[self.active].name}'s turn {turn} (the game starts in the {step.label})",
            cite("500.1"),
            self.active,
        )
        self._begin_step(step)

    def _begin_step(self, step: Step) -> None:
        self.step = step
        ap = self.players[self.active]
        self._emit("step", f"{ap.name}'s {step.label} begins", cite(step.rule))
        # 500.4: effects that last until this step expire as it begins.
        for obj in self.battlefield:
            if not obj.modifiers:
                continue
            ended = [m for m in obj.modifiers if m.step == step and m.player == self.active]
            if ended:
                obj.modifiers = [m for m in obj.modifiers if m not in ended]
                self._emit(
                    "expire",
                    f"the effect on {obj.label} that lasted until this step ends",
                    cite("500.4"),
                )
        self._step_triggers(step)
        if step == Step.UNTAP:
            for obj in self.battlefield:
                if obj.controller == self.active or (
                    self.teams is not None and self._same_team(obj.controller, self.active)
                ):
                    obj.tapped = False
                    obj.sick = False
            self._emit(
                "turn-based action",
                f"{ap.name} untaps their permanents",
                cite("502.3", "703.4c"),
                self.active,
            )
            self._emit(
                "no priority",
                "no player receives priority in the untap step",
                cite("502.4", "117.3a"),
            )
            self._end_step()
            return
        if step == Step.DRAW:
            if ap.in_game:
                self._draw(self.active, cite("504.1", "703.4d"))
            for mate in self.players if self.teams is not None else ():  # 805.4b: each draws
                if self._same_team(mate.index, self.active) and mate.in_game:
                    self._draw(mate.index, cite("504.1", "805.4b"))
        elif step == Step.BEGINNING_OF_COMBAT and self.one_defender and ap.in_game:
            self.defender = None
            if len(self.opponents(self.active)) > 1:
                self.awaiting = ("defender", self.active, 0)
                self._emit(
                    "turn-based action",
                    f"{ap.name} chooses one of their opponents as the defending player",
                    cite("506.2a"),
                    self.active,
                )
                self._run_shortcut()
                return
            self.defender = self.opponents(self.active)[0]
        elif step == Step.DECLARE_ATTACKERS:
            self.first_strike_step_done = False
            self.attackers_declared = False
            if ap.in_game:
                self.awaiting = ("attackers", self.active, 0)
                self._emit(
                    "turn-based action",
                    f"{ap.name} declares attackers",
                    cite("508.1", "703.4i"),
                    self.active,
                )
                self._run_shortcut()
                return
        elif step == Step.DECLARE_BLOCKERS:
            defenders = {o.attacking for o in self.battlefield if o.attacking is not None}
            for d in list(defenders):  # 805.10d: the whole defending team declares blockers
                defenders |= {q for q in range(len(self.players)) if self._same_team(q, d)}
            self.blockers_pending = [p for p in self.apnap() if p in defenders]
            if self.blockers_pending:
                self._next_blocker_declaration()
                return
        elif step in (Step.FIRST_STRIKE_DAMAGE, Step.COMBAT_DAMAGE):
            if self._await_damage_assignment(step == Step.FIRST_STRIKE_DAMAGE):
                return
            self._combat_damage(first_strike=step == Step.FIRST_STRIKE_DAMAGE)
        elif step == Step.CLEANUP:
            excess = len(ap.hand) - MAX_HAND_SIZE
            if ap.in_game and excess > 0:
                self.awaiting = ("discard", self.active, excess)
                self._emit(
                    "turn-based action",
                    f"{ap.name} has {len(ap.hand)} cards in hand and must discard {excess}",
                    cite("514.1", "402.2"),
                    self.active,
                )
                return
            self._cleanup_after_discard()
            return
        self._give_priority(
            self.active, cite("117.3a", PRIORITY_RULE.get(step, step.rule)), " (start of step)"
        )

    def _cleanup_after_discard(self) -> None:
        for obj in self.battlefield:
            obj.damage = 0
            if obj.modifiers:  # most permanents have none: no new list for them
                obj.modifiers = [m for m in obj.modifiers if m.until not in ("end of turn",)]
        if self.layered:  # continuous, replacement and prevention effects of this turn end
            self._expire_shields()
            self._expire_continuous()
        self._emit(
            "turn-based action",
            'damage wears off and "until end of turn" effects end',
            cite("514.2", "703.4p"),
        )
        if self._state_based_actions_pending() or self.pending:
            self.cleanup_again = True
            self._emit(
                "cleanup priority",
                "state-based actions or triggered abilities are waiting: players receive priority in "
                "this cleanup step, and another cleanup step follows",
                cite("514.3a"),
            )
            self._give_priority(self.active, cite("514.3a", "117.3a"))
            return
        self._emit(
            "no priority",
            "no player receives priority in the cleanup step",
            cite("514.3", "704.3"),
        )
        self._end_step()

    def _end_step(self) -> None:
        """500.5: effects until the end of the step expire, then mana pools empty."""
        step = self.step
        if step == Step.END_OF_COMBAT:
            for obj in self.battlefield:
                obj.attacking = None
                obj.attacking_planeswalker = None
                obj.blocking = None
                obj.also_blocking = ()
                obj.blocked = False
                obj.struck_first = False
                if obj.modifiers:
                    obj.modifiers = [m for m in obj.modifiers if m.until != "end of combat"]
            self.defender = None
            self._emit(
                "turn-based action",
                "all creatures are removed from combat",
                cite("511.3", "500.5a"),
            )
        for pl in self.players:
            if not pl.pool.is_empty():
                lost = pl.pool.empty()
                self._emit(
                    "mana empties",
                    f"{pl.name}'s unspent mana {format_mana(lost)} empties from the mana pool",
                    cite("500.5", "703.4q", "106.4"),
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
        if step == Step.UPKEEP and self._skips_first_draw_step():
            self._emit(
                "skip",
                f"{self.players[self.active].name} plays first in a two-player game and skips the "
                "draw step of their first turn: the game proceeds past it as though it didn't exist"
                if self.teams is None
                else f"{self.team_label(self.active)} plays first in a Two-Headed Giant game and "
                "skips the draw step of its first turn",
                cite("103.8a" if self.teams is None else "103.8b", "500.11", "614.10"),
                self.active,
            )
            return Step.PRECOMBAT_MAIN
        if step == Step.DECLARE_ATTACKERS and not self.attackers_declared:
            self._emit(
                "skip",
                "no creatures were declared as attackers: the declare blockers and combat damage "
                "steps are skipped",
                cite("508.8"),
            )
            return Step.END_OF_COMBAT
        if step == Step.DECLARE_BLOCKERS:
            fighters = [
                o for o in self.battlefield if o.attacking is not None or o.blocking is not None
            ]
            if any(self._strikes_first(o) for o in fighters):
                return Step.FIRST_STRIKE_DAMAGE
            return Step.COMBAT_DAMAGE
        if step == Step.DECLARE_BLOCKERS or step == Step.FIRST_STRIKE_DAMAGE:
            return Step.COMBAT_DAMAGE
        return _NEXT_STEP[step]

    def _skips_first_draw_step(self) -> bool:
        """103.8a: in a two-player game, the starting player skips the draw step of their first
        turn (the whole step, 500.11; 103.8b, Two-Headed Giant, is not modelled)."""
        if self.turn != 1 or self.active != self.starting_player:
            return False
        return len(self.players) == 2 or self.teams is not None  # 103.8a, 103.8b

    def _begin_turn(self) -> None:
        nxt = self._next_in_game(self.active)
        self.active = nxt
        self.turn += 1
        for pl in self.players:
            pl.lands_played = 0
        self.cleanup_again = False
        self.step = Step.UNTAP
        if self.trigger_order_turn:
            self._lapse_orders()
        self._emit(
            "turn",
            f"{self.players[nxt].name}'s turn {self.turn} begins",
            cite("500.1", "102.1"),
            nxt,
        )
        self._begin_step(Step.UNTAP)

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
        self._discard(p, card, cite("514.1", "701.9a"))
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
        self._to_graveyard(card)  # or where a replacement effect puts it (614.1a)
        self._emit("discard", f"{pl.name} discards {card.name}", rules, p)
        self._trigger_event("discard", controller=p)

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
                elif kind == "defender":
                    first = self.players[self.opponents(who)[0]].name
                    self.perform(Action("defender", name, targets=(first,)))
                elif kind == "damage":
                    self.perform(self._assignment_candidates()[0])
                else:
                    self.perform(Action("discard", name, self.players[who].hand[-1].id))
            elif self.priority is not None:
                self.perform(Action("pass", self.players[self.priority].name))
            else:  # pragma: no cover - the state machine always has someone to act
                raise ScenarioError("the game is stuck: nobody can act")
        raise ScenarioError(f"{player}'s {step.label} was not reached within {limit} actions")


_ORDER = [s for s in Step if s != Step.FIRST_STRIKE_DAMAGE]
#: The step that follows each step when nothing is skipped (500.1); cleanup ends the turn.
_NEXT_STEP = dict(pairwise(_ORDER))
