"""Continuous effects in the game (611, 613): the layers recomputed as the game changes.

Static abilities of permanents and the effects resolving spells and abilities create (``gain
control of target creature``, ``switch target creature's power and toughness``) are handed to
:func:`kb.engine.layers.compute` whenever the game changes (each event, each arrival and
departure), once any such effect is in the game; each permanent's ``card`` then holds its
characteristics and ``printed`` the card itself. A game with no such effect skips all this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.engine.cards import CardDef, Effect
from kb.engine.layer_text import LayerPart, LayerSpec, Selector, StaticAbility
from kb.engine.layers import Chars, Source, colors_of, compute, type_line
from kb.engine.objects import GameObject, Modifier, StackObject, cite
from kb.engine.state import GameState


@dataclass(slots=True, eq=False)
class Continuous:
    """A continuous effect from a resolved spell or ability (611.2): locked onto ``affected``
    as it was created (611.2c), with its timestamp (613.7b) and duration."""

    stamp: int
    name: str
    controller: int
    parts: tuple[LayerPart, ...]
    affected: frozenset[int]
    until: str  # "end of turn" | "" (indefinitely) | "control" (while its controller controls
    # the source permanent)
    source_id: int | None
    text: str


class ContinuousEffects(GameState):
    """The layer system in the game: effects created, expired, and applied to permanents."""

    def _refresh_layers(self) -> None:
        """Recompute every permanent's characteristics (613.1), if any layered effect exists."""
        if not self.layered or self.refreshing:
            return
        # What the layers read: the permanents (and who controls them), the effects, the hands
        # (a characteristic-defining ability may count cards). Unchanged: nothing to redo.
        inputs = (
            tuple((o.id, o.controller, o.face_down) for o in self.battlefield),
            tuple(e.stamp for e in self.continuous),
            tuple(len(p.hand) for p in self.players),
        )
        if inputs == self.layer_inputs:
            return
        self.refreshing = True
        try:
            notes = self._recompute()
        finally:
            self.refreshing = False
        self.layer_inputs = inputs if not notes else None  # a change of control: look again
        for text, rules, player, *why in notes:  # why: the explanation, for pages (613)
            self._emit("layers", text, rules, player, **({"layers": why[0]} if why else {}))

    def _recompute(self) -> list[tuple[Any, ...]]:
        notes: list[tuple[Any, ...]] = []
        notes += self._end_lapsed_effects()
        objects = []
        labels: dict[int, tuple[int, str]] = {}  # the timestamp and label of each face-up one
        for obj in self.battlefield:
            if obj.printed is None:
                obj.printed = obj.card
            objects.append((obj.id, obj.printed, self.base_controllers.get(obj.id, obj.controller)))
            if not obj.face_down:
                labels[obj.id] = (obj.stamp or obj.id, obj.label)
        sources = [
            Source(eff.stamp, eff.name, eff.parts, eff.controller, fixed=eff.affected)
            for eff in self.continuous
        ]
        for obj in self.battlefield:  # 707.5: the copy effect it entered with, in layer 1
            if obj.copied is not None and not obj.face_down and obj.printed is not None:
                part = LayerPart("1", "copy", obj.copied)
                sources.append(
                    Source(obj.stamp or obj.id, obj.printed.name, (part,), obj.controller,
                           fixed=frozenset({obj.id}))
                )  # fmt: skip

        def statics(recs: dict[int, Chars]) -> list[Source]:
            """The effects of static abilities, as layers 1-3 made each object (613.7a: the
            timestamp of the object they are on)."""
            out = []
            for oid, (stamp, label) in labels.items():
                rec = recs[oid]
                for st in rec.statics:
                    out.append(
                        Source(
                            stamp,
                            label,
                            st.parts,
                            rec.controller,
                            selector=st.selector,
                            source_id=oid,
                            ability=st,
                            cda=st.cda,
                        )
                    )
                if rec.anthem is not None:
                    out.append(
                        Source(
                            stamp,
                            label,
                            (LayerPart("7c", "modify pt", rec.anthem),),
                            rec.controller,
                            selector=Selector("creature", yours=True),
                            source_id=oid,
                            ability=_ANTHEM,
                            anthem=True,
                        )
                    )
            return out

        previous = self.layer_chars
        before = {o.id: _key(o.card, previous.get(o.id)) for o in self.battlefield}
        result = compute(objects, sources, self._layer_count, statics)
        self.layer_chars = result.chars
        changed = []
        for obj in list(self.battlefield):
            rec = result.chars[obj.id]
            if obj.face_down:
                continue
            view = rec.view(self.layer_views)
            if view is not obj.card:
                obj.card = view
                if view.sba_class:
                    self.battlefield.watch(obj)
            if rec.controller != obj.controller:
                notes.append(self._change_control(obj, rec.controller))
            elif (
                obj.id in before
                and before[obj.id] != _key(view, rec if obj.id in previous else None)
                and rec.notes
            ):
                changed.append(obj)
        for obj in changed:  # what the layers now make of a permanent that was already here
            now = f"{obj.label} is now {self.characteristics(obj)}"
            notes.append((now, cite("613.1"), None, self.layer_explanation(obj)))
        return notes

    def _layer_count(self, rec: Chars, what: str, recs: dict[int, Chars]) -> int:
        """A characteristic-defining ability's count (604.3), from the other characteristics as
        the layers have made them so far."""
        if what == "cards in your hand":
            return len(self.players[rec.controller].hand)
        kind = "creature" if what.startswith("creature") else "land"
        return sum(1 for r in recs.values() if kind in r.types and r.controller == rec.controller)

    def _change_control(self, obj: GameObject, p: int) -> tuple[str, list[str], int | None]:
        """613.1b: a new controller; the permanent is summoning sick for them (302.6) and
        leaves combat (506.4)."""
        self.battlefield.recontrol(obj, p)
        obj.sick = True
        left = obj.attacking is not None or obj.blocking is not None
        obj.attacking = obj.attacking_planeswalker = obj.blocking = None
        obj.also_blocking = ()
        who = self.players[p].name
        text = (
            f"{who} now controls {obj.label} (layer 2): it hasn't been under {who}'s control "
            "continuously since their most recent turn began, so it can't attack or pay {T} "
            "costs unless it has haste"
        )
        rules = cite("613.1b", "302.6")
        if left:
            text += "; it is removed from combat"
            rules.append("506.4")
        return text, rules, p

    def _end_lapsed_effects(self) -> list[tuple[str, list[str], int | None]]:
        """611.2b: an effect "for as long as you control" its source ends when they no longer
        do; an effect on objects that all left the battlefield ends too (400.7)."""
        notes: list[tuple[str, list[str], int | None]] = []
        keep = []
        for eff in self.continuous:
            if not any(self.battlefield.get(o) for o in eff.affected):
                continue
            if eff.until == "control":
                src = self.battlefield.get(eff.source_id or -1)
                if src is None or src.controller != eff.controller:
                    notes.append(
                        (
                            f"the effect of {eff.name} ends: its controller no longer controls "
                            "its source",
                            cite("611.2b"),
                            eff.controller,
                        )
                    )
                    continue
            keep.append(eff)
        self.continuous = keep
        return notes

    def _create_continuous(
        self, effect: Effect, p: int, item: StackObject, target: tuple[str, int] | None
    ) -> None:
        """611.2a, 613.7b: a resolving spell or ability creates a continuous effect on its
        target, with a timestamp of now."""
        spec: LayerSpec = effect.spec
        obj = self._object(target[1]) if target is not None else None
        if obj is None:
            return
        if spec.until == "control" and item.source is None:
            return  # "for as long as you control this" needs a permanent's ability
        parts = spec.parts
        if any(part.op == "text" for part in parts):
            found = self._text_parts(parts, p, item)  # type: ignore[attr-defined]
            if found is None:
                return
            parts = found
        stamp = self._new_id()
        if any(part.layer == "2" for part in parts):
            self.base_controllers.setdefault(obj.id, obj.controller)
        source_id = item.source.id if item.source is not None else None
        self.continuous.append(
            Continuous(
                stamp,
                item.name,
                p,
                parts,
                frozenset({obj.id}),
                spec.until,
                source_id,
                effect.text,
            )
        )
        self.layered = True
        rules = cite("611.2a", "613.7b", *sorted({_LAYER_RULES[part.layer] for part in parts}))
        says = "; ".join(part.says() for part in parts)
        until = {
            "end of turn": " until end of turn",
            "control": " for as long as "
            f"{self.players[p].name} controls {item.name.removesuffix(' ability')}",
        }
        self._emit(
            "effect",
            f"{item.name}'s effect on {obj.label}{until.get(spec.until, '')}: {says}",
            rules,
            p,
        )
        if spec.haste and self._object(obj.id) is not None:
            obj.tapped = False
            obj.modifiers.append(
                Modifier(0, 0, "end of turn", keywords=frozenset({"haste"}), stamp=self._new_id())
            )
            self._emit(
                "effect",
                f"{obj.label} untaps and gains haste until end of turn",
                cite("701.26b", "702.10b"),
                p,
            )
        now = f"{obj.label} is now {self.characteristics(obj)}"
        if not (self.events and self.events[-1].text == now):  # the layers said it already
            self._emit("effect", now, cite("613.1"), p, layers=self.layer_explanation(obj))

    def _expire_continuous(self) -> None:
        """514.2: "until end of turn" effects end in the cleanup step."""
        ending = [e for e in self.continuous if e.until == "end of turn"]
        if not ending:
            return
        self.continuous = [e for e in self.continuous if e.until != "end of turn"]
        self._refresh_layers()

    # ---- what the layers give -----------------------------------------------------------------
    def _layered_pt(self, obj: GameObject) -> tuple[int, int]:
        """613.4: 7a-7b in the permanent's characteristics, then 7c (effects, counters, modifiers,
        attached bonuses, read live) and 7d (switching)."""
        card = obj.card
        base_p = 2 if obj.face_down else card.power or 0
        base_t = 2 if obj.face_down else card.toughness or 0
        rec = self.layer_chars.get(obj.id)
        bp, bt = rec.bonus if rec is not None and not obj.face_down else (0, 0)
        c = self._counter_bonus(obj)
        mp = sum(m.power for m in obj.modifiers)
        mt = sum(m.toughness for m in obj.modifiers)
        att = self._attached_bonuses(obj)
        p = base_p + bp + c + mp + sum(b[0] for b in att)
        t = base_t + bt + c + mt + sum(b[1] for b in att)
        if rec is not None and rec.switched:
            return t, p
        return p, t

    def _lost_at(self, obj: GameObject) -> int:
        """The timestamp of the last effect that removed all the permanent's abilities (0: none)."""
        rec = self.layer_chars.get(obj.id) if self.layered else None
        return rec.lost_at if rec is not None else 0

    def characteristics(self, obj: GameObject) -> str:
        """``a blue Creature — Frog 1/1 with no abilities``: what the layers made of it."""
        card = obj.card
        colors = " and ".join(colors_of(card)) or "colorless"
        line = f"{colors} {type_line(card)}"
        if self.is_creature(obj):
            line += f" {self.power(obj)}/{self.toughness(obj)}"
        printed = obj.copied.card if obj.copied is not None else obj.printed or card
        had = printed.keywords or printed.abilities or printed.triggers or printed.statics
        if had and not (card.keywords or card.abilities or card.triggers or card.statics):
            line += " with no abilities"
        changed = [st.text for st in card.statics if st not in printed.statics]
        if changed and len(card.statics) == len(printed.statics):  # its text changed (612)
            line += " whose text now reads: " + "; ".join(changed)
        return line

    def layer_explanation(self, obj: GameObject) -> list[str]:
        """Why the permanent is what it is: each effect that applied, in which layer and why
        (timestamp or dependency), then the live parts of layer 7c and 7d."""
        rec = self.layer_chars.get(obj.id) if self.layered else None
        notes = list(rec.notes) if rec is not None else []
        lines = [n for n in notes if not n.startswith("layer 7d")]
        switched = [n for n in notes if n.startswith("layer 7d")]  # after 7c's live parts
        printed = obj.printed or obj.card
        if printed.power is not None and not lines:
            lines.append(f"printed power and toughness {printed.power}/{printed.toughness}")
        c = self._counter_bonus(obj)
        if c:
            lines.append(
                f"layer 7c (power/toughness modified): counters give {c:+d}/{c:+d} (613.4c)"
            )
        for m in obj.modifiers:
            if m.power or m.toughness:
                lines.append(
                    f"layer 7c (power/toughness modified): {m.power:+d}/{m.toughness:+d} until "
                    f"{m.until} (613.4c)"
                )
        if not self.layered and self.anthems:
            for other in self.battlefield:
                if other.card.anthem and other.controller == obj.controller:
                    a = other.card.anthem
                    lines.append(
                        f"layer 7c (power/toughness modified): {other.name} gives it "
                        f"{a[0]:+d}/{a[1]:+d} (613.4c)"
                    )
        lines += switched
        if self.is_creature(obj):
            lines.append(f"result: {self.power(obj)}/{self.toughness(obj)}")
        return lines or ["no continuous effect applies to it"]


def _key(card: CardDef, rec: Chars | None) -> tuple[object, ...]:
    """What the layers decide about a permanent (not the counters and damage read live); the
    first time the layers look at it, its card alone (a bonus an anthem gave it before is no
    change)."""
    extra = (rec.bonus, rec.switched, rec.controller) if rec is not None else ()
    return (
        card.types,
        card.subtypes,
        colors_of(card),
        card.power,
        card.toughness,
        card.keywords,
        card.abilities,
        card.statics,
        *extra,
    )


_ANTHEM = StaticAbility("creatures you control get +N/+N", Selector("creature", yours=True), ())
_LAYER_RULES = {
    "1": "613.1a",
    "2": "613.1b",
    "3": "613.1c",
    "4": "613.1d",
    "5": "613.1e",
    "6": "613.1f",
    "7a": "613.4a",
    "7b": "613.4b",
    "7c": "613.4c",
    "7d": "613.4d",
}
