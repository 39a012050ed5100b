"""Keyword abilities that protect a permanent, and the keyword action sacrifice.

Hexproof (702.11b), shroud (702.18a) and protection from a color (702.16b: from spells of that
color and abilities of sources of that color) make a permanent an illegal target, checked as
targets are chosen (601.2c, 602.2b) and again on resolution (608.2b); protection also prevents
damage from sources of its color (702.16e), stops blocks by creatures of its color (702.16f,
in :mod:`kb.engine.combat`) and Auras and Equipment of its color (702.16c-d, in
:mod:`kb.engine.sba`). Indestructible (702.12b) stops
destruction: a "destroy" effect (701.8a) and the state-based actions for lethal damage (704.5g)
and deathtouch damage (704.5h), but not toughness 0 (704.5f) nor a sacrifice (701.21a), which
moves a permanent from the battlefield to its owner's graveyard without destroying it.
"""

from __future__ import annotations

from kb.engine.effect_text import Effect
from kb.engine.layer_text import COLORS
from kb.engine.layers import colors_of
from kb.engine.objects import GameObject, StackObject, cite
from kb.engine.state import GameState

#: "protection from <color>" (702.16a), the qualities the engine models.
PROTECTIONS = frozenset(f"protection from {c}" for c in COLORS)
_UNTARGETABLE = frozenset({"hexproof", "shroud", *PROTECTIONS})


class KeywordRules(GameState):
    """Hexproof, shroud and indestructible (702.11, 702.18, 702.12), and sacrifice (701.21)."""

    def _protected_from(self, obj: GameObject, colors: tuple[str, ...]) -> str | None:
        """The color among ``colors`` the permanent has protection from (702.16), or None."""
        if not colors or (
            obj.card.keywords.isdisjoint(PROTECTIONS) and not (obj.modifiers or self.attachments)
        ):
            return None
        return next((c for c in colors if self.has(obj, f"protection from {c}")), None)

    def _colors(self, obj: GameObject) -> tuple[str, ...]:
        """A permanent's colors (a face-down one is colorless, 708.2)."""
        return () if obj.face_down else colors_of(obj.card)

    def _item_colors(self, item: StackObject) -> tuple[str, ...]:
        """The colors of a spell, or of the source of an ability (702.16b)."""
        if item.card is not None:
            return () if item.face_down else colors_of(item.card.card)
        return self._colors(item.source) if item.source is not None else ()

    def _source_colors(self, source: int | None) -> tuple[str, ...]:
        """The colors of what targets, by id: a permanent, a spell, or a card being cast."""
        if source is None:
            return ()
        obj = self._object(source)
        if obj is not None:
            return self._colors(obj)
        item = self._stack_item(source)
        if item is not None:
            return self._item_colors(item)
        card = next((c for pl in self.players for c in pl.hand if c.id == source), None)
        return colors_of(card.card) if card is not None else ()

    def _untargetable(
        self, obj: GameObject, controller: int | None, colors: tuple[str, ...] = ()
    ) -> tuple[str, str] | None:
        """Why ``obj`` can't be the target of a spell or ability ``controller`` controls (of
        ``colors``), with the rule: shroud for anyone's (702.18a), hexproof for an opponent's
        (702.11b), protection from one of its colors (702.16b); or None."""
        if obj.card.keywords.isdisjoint(_UNTARGETABLE) and not (
            obj.granted or obj.modifiers or self.attachments
        ):
            return None  # the common case: nothing can protect it
        if (color := self._protected_from(obj, colors)) is not None:
            return (
                f"{obj.label} has protection from {color}: it can't be the target of {color} "
                f"spells or of abilities from {color} sources",
                "702.16b",
            )
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
