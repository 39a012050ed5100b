"""Objects changing zones that may not: tokens that have left the battlefield (111.8) and copies
of spells (707.10, 704.5e).

A token that has left the battlefield can't move to another zone or come back onto the
battlefield: it remains where it is and ceases to exist the next time state-based actions are
checked (111.8, 704.5d). A copy of a spell is a spell on the stack with no card (707.10); it
resolves like the spell it copies, and if it is ever in a zone other than the stack (countered,
or a copy of an instant or sorcery finishing its resolution) it ceases to exist as a
state-based action (704.5e, 707.10a).
"""

from __future__ import annotations

from kb.engine.cards import Effect
from kb.engine.objects import GameObject, StackObject, cite
from kb.engine.state import GameState


class ZoneChanges(GameState):
    """Flickering and bouncing permanents (tokens stay behind, 111.8), and copies of spells."""

    def _apply_zone_change(
        self, effect: Effect, p: int, item: StackObject, target: tuple[str, int] | None
    ) -> bool:
        """The effects of this module; False when ``effect`` is none of them."""
        if effect.kind == "blink":
            assert target is not None
            obj = self._object(target[1])
            if obj is not None:
                self._blink(obj, p if effect.scope == "you" else obj.owner)
            return True
        if effect.kind == "bounce":
            assert target is not None
            obj = self._object(target[1])
            if obj is not None:
                self._bounce(obj, p)
            return True
        if effect.kind == "copy":
            assert target is not None
            original = self._stack_item(target[1])
            if original is not None:
                self._copy_spell(original, p, self._copy_targets(effect, p, item, original))
            return True
        return False

    def _blink(self, obj: GameObject, controller: int) -> None:
        """Exile a permanent, then return that card to the battlefield: a new object (400.7);
        a token stays in exile (111.8)."""
        owner = self.players[obj.owner]
        p = controller
        self._emit("exile", f"{obj.label} is exiled", cite("701.13a", "406.3"), p)
        self._leave_battlefield([obj], dies=False, to="exile")
        exiled = next((c for c in reversed(owner.exile) if c.card is obj.card), None)
        if exiled is None:
            return
        if obj.token:
            self._emit(
                "token stays",
                f"the token {obj.label} has left the battlefield: it can't come back onto the "
                "battlefield and remains in exile",
                cite("111.8"),
                p,
            )
            return
        owner.exile.remove(exiled)
        self._enter(
            obj.printed or obj.card,
            controller,
            said=lambda new: self._emit(
                "enter",
                f"{new.label} returns to the battlefield under {self.players[controller].name}'s "
                "control as a new object, with no memory of its previous existence (untapped, no "
                "damage, no counters)",
                cite("400.7"),
                p,
            ),
        )

    def _bounce(self, obj: GameObject, p: int) -> None:
        """Return a permanent to its owner's hand (a token goes there too, then ceases to exist
        at the next check of state-based actions, 111.7, 704.5d)."""
        owner = self.players[obj.owner]
        self.battlefield.remove(obj)
        note = ""
        rules = cite("400.7")
        if owner.in_game:
            card = self._new_object(obj.printed or obj.card, obj.owner)
            card.token = obj.token
            owner.hand.append(card)
        if obj.token:
            note = " (a token: it will cease to exist when state-based actions are checked)"
            rules += ["111.7", "704.5d"]
        self._emit("bounce", f"{obj.label} is returned to {owner.name}'s hand{note}", rules, p)

    def _copy_spell(
        self, original: StackObject, p: int, new_targets: list[tuple[str, int]] | None = None
    ) -> None:
        """707.10: put a copy of a spell onto the stack, controlled and owned by ``p``; it copies
        the spell's characteristics and the decisions made for it (mode, targets, division) and
        is not cast (no "whenever you cast" trigger). 707.10c: new targets only if given."""
        card = original.card
        cdef = card.card if card is not None else None
        copy_card = self._new_object(cdef, p) if cdef is not None else None
        if copy_card is not None:
            copy_card.copy = True
        self.tokens = True  # something may now cease to exist (704.5e)
        targets = list(new_targets) if new_targets is not None else list(original.targets)
        item = StackObject(
            self._new_id(),
            "spell",
            original.name,
            p,
            original.effects,
            targets,
            copy_card,
            original.face_down,
            division=original.division,
            copy=True,
        )
        self.stack.append(item)
        aimed = ""
        if targets:
            aimed = f" targeting {', '.join(self.target_label(t) for t in targets)}"
            aimed += " (new targets)" if new_targets is not None else " (the same targets)"
        rules = cite("707.10")
        if new_targets is not None:
            rules.append("707.10c")
        self._emit(
            "copy",
            f"a copy of {original.name} is put onto the stack under {self.players[p].name}'s "
            f"control{aimed}; it is not cast",
            rules,
            p,
        )
