"""Copy effects (707, layer 1) and text-changing effects (612, layer 3) in the game.

A permanent with "you may have this creature enter as a copy of any creature on the
battlefield" (Clone) becomes a copy as it enters (707.5, 614.1c): its controller announces the
choice before it resolves (``Alice announces for Clone: copy Grizzly Bears``, or ``copy
nothing``), and the copy effect takes the copiable values of that creature then (707.2: as
printed, or as copied if it is itself a copy, 707.3, with the exceptions of 707.9), never its
counters, status or the other effects on it. The layer system (:mod:`kb.engine.layers`)
applies that copy effect in layer 1, before everything else.

A spell "change the text of target permanent by replacing all instances of one basic land type
word with another" (Magical Hack) creates a text-changing effect applied in layer 3 (612,
613.1c); the words are announced before it resolves: ``Alice announces for Magical Hack:
change swamp to island``.
"""

from __future__ import annotations

from dataclasses import replace

from kb.engine.cards import CardDef
from kb.engine.copy_text import CopySpec, CopyValue
from kb.engine.layer_text import LayerPart, LayerTextError, check_text_words
from kb.engine.objects import GameObject, IllegalAction, StackObject, cite
from kb.engine.state import GameState

#: What a face-down permanent's copiable values are (708.2, 707.2): a nameless 2/2 creature.
FACE_DOWN = CardDef(
    name="a face-down creature", types=("creature",), cost=None, power=2, toughness=2
)


class Copies(GameState):
    """Copy effects as a permanent enters (707.5) and text-changing effects (612)."""

    def copiable_values(self, obj: GameObject) -> CardDef:
        """707.2-707.3: what copying this permanent gives: its printed values, or the copiable
        values it took as a copy (with that copy's exceptions); face down, a 2/2 (708.2)."""
        if obj.face_down:
            return FACE_DOWN
        return obj.copied.card if obj.copied is not None else obj.printed or obj.card

    def _copy_as_enters(
        self, obj: GameObject, cdef: CardDef, p: int, item: StackObject | None
    ) -> CardDef:
        """707.5, 614.1c: the permanent enters as a copy of the creature its controller chose
        (announced for its spell), or as itself; returns the characteristics it enters with."""
        spec = cdef.copy_as
        assert spec is not None
        names = self._announced(item, "copy") if item is not None else None  # type: ignore[attr-defined]
        who = self.players[p].name
        if not names or names[0].lower() == "nothing":
            why = (
                f"{who} chose to copy nothing"
                if names
                else f"{who} announced no choice ('{who} announces for {cdef.name}: copy <name>' "
                "before it resolves)"
            )
            self._emit(
                "replacement",
                f"{cdef.name} enters as itself, a copy of nothing: {why}",
                cite("707.5", "614.1c"),
                p,
            )
            return cdef
        original = self._copy_candidate(names[0], spec)
        if original is None:
            self._emit(
                "replacement",
                f"{cdef.name} enters as itself: there is no {spec.kind} named {names[0]} on the "
                "battlefield to copy",
                cite("707.5", "614.1c"),
                p,
            )
            return cdef
        return self._become_copy(obj, cdef, original, spec, p)

    def _copy_candidate(self, name: str, spec: CopySpec) -> GameObject | None:
        """The first permanent of that name the copy effect may copy (``any creature``)."""
        try:
            found = self.permanents_named(name)
        except IllegalAction:
            return None
        return next((o for o in found if self._copyable_kind(o, spec.kind)), None)

    def _copyable_kind(self, obj: GameObject, kind: str) -> bool:
        if kind == "permanent":
            return True
        if kind in ("creature", "artifact or creature") and self.is_creature(obj):
            return True
        return kind != "creature" and any(obj.card.is_a(k) for k in kind.split(" or "))

    def _become_copy(
        self, obj: GameObject, cdef: CardDef, original: GameObject, spec: CopySpec, p: int
    ) -> CardDef:
        """The copy effect, locked in as it begins (707.2b): a layer 1 effect on ``obj``."""
        values = self.copiable_values(original)
        kws = values.keywords | spec.keywords
        made = replace(
            values,
            power=spec.pt[0] if spec.pt is not None else values.power,
            toughness=spec.pt[1] if spec.pt is not None else values.toughness,
            keywords=kws,
            types=(*values.types, spec.add_type)
            if spec.add_type and spec.add_type not in values.types
            else values.types,
            supertypes=tuple(t for t in values.supertypes if t != "legendary")
            if spec.not_legendary
            else values.supertypes,
        )
        value = CopyValue(original.label, made, spec.exceptions())
        obj.printed = cdef
        obj.copied = value  # layer 1 applies it while obj is on the battlefield (continuous.py)
        obj.card = made
        self.layered = True
        copied = " (itself a copy: its copiable values are what it copied, 707.3)" * (
            original.copied is not None
        )
        rules = cite("707.5", "614.1c", "707.2", "613.2a")
        if original.copied is not None:
            rules.append("707.3")
        if spec.exceptions():
            rules.append("707.9")
        self._emit(
            "replacement",
            f"{cdef.name} enters as a copy of {original.label}{copied}: {value.says()}",
            rules,
            p,
        )
        return made

    # ---- text-changing effects (612) --------------------------------------------------------
    def _text_parts(
        self, parts: tuple[LayerPart, ...], p: int, item: StackObject
    ) -> tuple[LayerPart, ...] | None:
        """The words of a text-changing effect whose words are chosen as it resolves, from the
        announcement (``change swamp to island``); None when none was announced."""
        out = []
        for part in parts:
            if part.op != "text" or part.value[1] is not None:
                out.append(part)
                continue
            kind = part.value[0]
            names = self._announced(item, "change")  # type: ignore[attr-defined]
            if not names:
                who = self.players[p].name
                self._emit(
                    "effect",
                    f"{item.name} changes no text: {who} announced no words ('{who} announces "
                    f"for {item.name}: change <{kind} word> to <{kind} word>' before it resolves)",
                    cite("612.2", "608.2d"),
                    p,
                )
                return None
            old, new = text_change_words(names[0], kind)
            out.append(LayerPart("3", "text", (kind, old, new)))
        return tuple(out)


def text_change_words(said: str, kind: str) -> tuple[str, str]:
    """``swamp to island`` as the two words of a text change of that kind (612.2)."""
    old, sep, new = said.lower().partition(" to ")
    if not sep:
        raise IllegalAction(f"'change <old word> to <new word>', not {said!r}", "612.2")
    try:
        return check_text_words(kind, old.strip(), new.strip())
    except LayerTextError as err:
        raise IllegalAction(str(err), "612.2") from None
