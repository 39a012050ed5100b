"""State-based actions (704): checked whenever a player would receive priority, performed at once."""

from __future__ import annotations

from kb.engine.objects import GameObject
from kb.engine.state import GameState


class StateBasedActions(GameState):
    """State-based actions (704): checked whenever a player would receive priority, performed at once."""

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
