"""Keyword abilities that protect a permanent, and the keyword action sacrifice.

Hexproof (702.11b) and shroud (702.18a) make a permanent an illegal target, checked as targets
are chosen (601.2c, 602.2b) and again on resolution (608.2b). Indestructible (702.12b) stops
destruction: a "destroy" effect (701.8a) and the state-based actions for lethal damage (704.5g)
and deathtouch damage (704.5h), but not toughness 0 (704.5f) nor a sacrifice (701.21a), which
moves a permanent from the battlefield to its owner's graveyard without destroying it.
"""

from __future__ import annotations

from kb.engine.effect_text import Effect
from kb.engine.objects import GameObject, StackObject, cite
from kb.engine.state import GameState

_UNTARGETABLE = frozenset({"hexproof", "shroud"})


class KeywordRules(GameState):
    """Hexproof, shroud and indestructible (702.11, 702.18, 702.12), and sacrifice (701.21)."""

    def _untargetable(self, obj: GameObject, controller: int | None) -> tuple[str, str] | None:
        """Why ``obj`` can't be the target of a spell or ability ``controller`` controls, with
        the rule: shroud for anyone's (702.18a), hexproof for an opponent's (702.11b); or None."""
        if obj.card.keywords.isdisjoint(_UNTARGETABLE) and not (
            obj.granted or obj.modifiers or self.attachments
        ):
            return None  # the common case: nothing can protect it
        if self.has(obj, "shroud"):
            return (
                f"{obj.label} has shroud: it can't be the target of spells or abilities",
                "702.18a",
            )
        if (
            controller is not None
            and self.has(obj, "hexproof")
            and controller != obj.controller
            and not self._same_team(controller, obj.controller)
        ):
            return (
                f"{obj.label} has hexproof: it can't be the target of spells or abilities its "
                "controller's opponents control",
                "702.11b",
            )
        return None

    def _untargetable_id(self, oid: int, controller: int) -> tuple[str, str] | None:
        """:meth:`_untargetable` for a permanent given by id (None for a spell on the stack)."""
        obj = self._object(oid)
        return None if obj is None else self._untargetable(obj, controller)

    def _indestructible(self, obj: GameObject) -> bool:
        """702.12b: a permanent with indestructible can't be destroyed."""
        return self.has(obj, "indestructible")

    def _destroy(self, obj: GameObject, p: int) -> None:
        """701.8a: destroy a permanent (to its owner's graveyard), unless it is indestructible."""
        if self._indestructible(obj):
            self._emit(
                "effect",
                f"{obj.label} has indestructible and isn't destroyed",
                cite("702.12b", "701.8a"),
                p,
            )
            return
        if self.shields and self._regenerate(obj):  # 701.19a
            return
        self._emit("destroy", f"{obj.label} is destroyed", cite("701.8a"), p)
        self._leave_battlefield([obj], dies=True)

    def _sacrifice(
        self, effect: Effect, p: int, item: StackObject, target: tuple[str, int] | None
    ) -> None:
        """701.21a: each player the effect names sacrifices a creature they control (their own
        announced choice, whoever controls the effect, else the last to arrive), in APNAP order (101.4); it goes to its
        owner's graveyard, so indestructible doesn't stop it, and it dies (700.4)."""
        who = self._players_named(effect, p, target, [p]) or [p]
        chosen: list[GameObject] = []
        for q in who:
            pl = self.players[q]
            mine = [o for o in self.battlefield.of(q) if self.is_creature(o)]
            if not pl.in_game or not mine:
                self._emit(
                    "effect",
                    f"{pl.name} controls no creature and sacrifices nothing",
                    cite("701.21a"),
                    q,
                )
                continue
            obj = self._chosen_sacrifice(q, item, mine) or mine[-1]
            kept = self._indestructible(obj)
            self._emit(
                "sacrifice",
                f"{pl.name} sacrifices {obj.label}"
                # where it goes instead, if a replacement effect applies, is said next (614)
                + (": it is put into its owner's graveyard" if not self.layered else "")
                + (" (sacrificing isn't destroying: indestructible doesn't stop it)") * kept,
                cite("701.21a", "702.12b") if kept else cite("701.21a"),
                q,
            )
            chosen.append(obj)
        if chosen:
            self._leave_battlefield(chosen, dies=True)

    def _chosen_sacrifice(
        self, p: int, item: StackObject, mine: list[GameObject]
    ) -> GameObject | None:
        """The creature the player announced to sacrifice for this resolution, if they control
        it (608.2d)."""
        names = self._announced(item, f"sacrifice {p}")
        for name in names or []:
            obj = next((o for o in mine if o.name.lower() == name.lower()), None)
            if obj is not None:
                return obj
            self._emit(
                "note",
                f"{self.players[p].name} controls no creature named {name}: the last to arrive "
                "is sacrificed",
                cite("608.2d"),
                p,
            )
        return None
