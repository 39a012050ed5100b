"""Tournament shortcuts (MTR 4.2): "go", "combat?", holding priority, and where they stop."""

from __future__ import annotations

from kb.engine.objects import SHORTCUTS, Action, IllegalAction, Shortcut, cite
from kb.engine.state import GameState
from kb.engine.steps import Step


class Shortcuts(GameState):
    """Tournament shortcuts (MTR 4.2): "go", "combat?", holding priority, and where they stop."""

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
            cite("MTR 4.2"),
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
                    cite("MTR 4.2"),
                )
                return
            if self.step == sc.stop and self.priority is not None and self.priority != sc.player:
                self.shortcut = None
                self._emit(
                    "shortcut",
                    f'the shortcut "{sc.phrase}" stops: {self.players[self.priority].name} has '
                    f"priority in the {self.step.label}",
                    cite("MTR 4.2"),
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
