"""Resolving spells and abilities (608): targets rechecked, effects applied in order, zones changed."""

from __future__ import annotations

from collections.abc import Callable

from kb.engine.cards import CardDef, Effect
from kb.engine.mana import format_mana
from kb.engine.objects import DelayedTrigger, GameObject, Modifier, StackObject, cite
from kb.engine.state import GameState
from kb.engine.steps import parse_step


class Resolving(GameState):
    """Resolving spells and abilities (608): targets rechecked, effects applied in order, zones changed."""

    def _resolve_top(self) -> None:
        item = self.stack.pop()
        p = item.controller
        kinds = [e.target for e in item.effects if e.target]
        colors = self._item_colors(item) if item.targets else ()  # type: ignore[attr-defined]
        legal = [
            self._target_legal(t, k, item.source.id if item.source else item.id, p, colors)
            for t, k in zip(item.targets, kinds, strict=True)
        ]
        if item.targets and not any(legal):
            self._emit(
                "fizzle",
                f"{item.name} doesn't resolve: its target is no longer legal"
                if len(item.targets) == 1
                else f"{item.name} doesn't resolve: all its targets are illegal",
                cite("608.2b"),
                p,
            )
            if item.card is not None:
                self._to_graveyard(item.card)
            return
        origin = item.source or item.origin
        if item.if_untapped and origin is not None and origin.tapped:  # last known state (608.2h)
            self._emit(
                "effect",
                f"{item.name} does nothing: {origin.label} is tapped as it resolves (its condition "
                "is false)",
                cite("603.4"),
                p,
            )
            return
        rules = cite("117.4", "608.2")
        note = ""
        if item.kind != "spell" and origin is not None and origin not in self.battlefield:
            rules.append("113.7a")
            note = " (its source has left the battlefield: the ability exists independently of it)"
        if item.copy:
            note = " (a copy of a spell: it resolves like the spell)"
            rules.append("707.10")
        self._emit("resolve", f"{item.name} resolves{note}", rules, p, resolved=item.name)
        targets = iter(zip(item.targets, legal, strict=True))
        last: tuple[str, int] | None = None
        if any(e.kind == "shield" and e.spec.self_replacement for e in item.effects):
            self._begin_self_replacements(item)  # 614.15: they wait for the spell's own events
        for effect in item.effects:
            target = None
            if effect.target:
                target, ok = next(targets)
                if not ok:
                    self._emit(
                        "effect",
                        f"{self.target_label(target)} is an illegal target: that part does nothing",
                        cite("608.2b"),
                        p,
                    )
                    continue
            elif effect.kind == "shield" and effect.spec.self_replacement:
                continue
            elif effect.kind == "shield" and effect.spec.who == "that creature":
                target = last  # "if that creature would die this turn" (the earlier target)
            last = target or last
            if effect.kind in _BASIC:
                self._apply(effect, p, item, target)
            else:
                self._apply_more(effect, p, item, target)
            if self.game_over:
                return
        if self.shields:
            self._end_self_replacements(item)
        if item.card is not None:
            if item.face_down:
                self._enter(
                    item.card.card,
                    p,
                    face_down=True,
                    said=lambda obj: self._emit(
                        "enter",
                        f"a face-down 2/2 creature ({obj.card.name}) enters the battlefield",
                        cite("608.3", "708.3"),
                        p,
                    ),
                )
            elif item.card.card.has_sub("aura"):
                self._enter_attached(item, p)
            elif item.card.card.is_permanent:
                # 707.10f: a copy of a permanent spell becomes a token as it resolves.
                obj = self._enter(
                    item.card.card,
                    p,
                    token=item.copy,
                    item=item,
                    said=lambda obj: self._emit(
                        "enter",
                        f"{obj.label} enters the battlefield under {self.players[p].name}'s "
                        "control",
                        cite("608.3"),
                        p,
                    ),
                )
                if item.haste:
                    obj.granted = frozenset({"haste"})
            else:
                self._to_graveyard(item.card)

    def _to_graveyard(self, card: GameObject, dying: bool = False) -> str:
        """Put a card (or a permanent leaving) into its owner's graveyard, unless a replacement
        effect sends it elsewhere (614.1a); returns where it went."""
        owner = self.players[card.owner]
        printed = card.printed or card.card
        where = "graveyard"
        if self.layered:
            chooser = card.controller if card in self.battlefield or dying else card.owner
            where = self._graveyard_destination(card, dying, chooser)
        if owner.in_game and where != "graveyard":
            self._put_instead(printed, card.owner, where, card.token)
        elif owner.in_game:
            new = self._new_object(printed, card.owner)
            new.token = card.token  # a token ceases to exist there as an SBA (704.5d)
            new.copy = card.copy  # so does a copy of a spell (704.5e)
            owner.graveyard.append(new)
        return where

    def _enter(
        self,
        cdef: CardDef,
        controller: int,
        face_down: bool = False,
        token: bool = False,
        said: Callable[[GameObject], None] | None = None,
        item: StackObject | None = None,
    ) -> GameObject:
        """Put a new permanent onto the battlefield: replacement effects on how it enters
        (614.1c-d), then ``said`` traces its arrival, then the layers are recomputed and the
        abilities its arrival triggers trigger (603.2), so the trace tells the event before
        what it causes."""
        obj = self._new_object(cdef, controller)
        obj.sick = True
        obj.face_down = face_down
        obj.token = token
        if cdef.copy_as is not None and not face_down:  # 707.5: it enters as a copy
            cdef = self._copy_as_enters(obj, cdef, controller, item)  # type: ignore[attr-defined]
        self.tokens = self.tokens or token
        self.anthems = self.anthems or cdef.anthem is not None
        self.restrictions = self.restrictions or cdef.no_attacks
        self.rooms = self.rooms or cdef.door is not None
        self.legends = self.legends or cdef.legendary
        self.layered = self.layered or bool(cdef.statics or cdef.replacements)
        if cdef.loyalty is not None and not face_down:
            obj.counters["loyalty"] = cdef.loyalty  # 306.5b
        if self.layered and not face_down:
            self._enter_replacements(obj, cdef, controller)  # 614.1c-d, 614.12
        self.battlefield.append(obj)
        if said is not None:
            said(obj)
        if self.layered:
            self._refresh_layers()
        if self.is_creature(obj):
            self._trigger_event("enters", controller=controller, subject=obj)
        return obj

    def _apply(
        self, effect: Effect, p: int, item: StackObject, target: tuple[str, int] | None
    ) -> None:
        name = self.players[p].name
        kind = effect.kind
        source = item.name
        if kind == "damage":
            if target is not None:
                recipients = [target]
            elif (named := self._players_named(effect, p, None, None)) is not None:
                recipients = [("player", o) for o in named]
            else:
                recipients = [("object", o.id) for o in self.battlefield if self.is_creature(o)]
            for r in recipients:
                self._damage(
                    r,
                    effect.amount,
                    source,
                    item.keywords,
                    p,
                    combat=False,
                    colors=self._item_colors(item),  # type: ignore[attr-defined]
                )
        elif kind == "gain":
            self.players[p].life += effect.amount
            shared = self._share_life(p) if self.teams is not None else ""
            self._emit(
                "life",
                f"{name} gains {effect.amount} life ({self.players[p].life}){shared}",
                cite("119.3"),
                p,
            )
        elif kind == "lose":
            for o in self._players_named(effect, p, target, [p]) or [p]:
                self.players[o].life -= effect.amount
                shared = self._share_life(o) if self.teams is not None else ""
                self._emit(
                    "life",
                    f"{self.players[o].name} loses {effect.amount} life ({self.players[o].life})"
                    + shared,
                    cite("119.3"),
                    o,
                )
        elif kind == "draw":
            # "that player" of a trigger at the beginning of each player's step
            for drawer in self._players_named(effect, p, None, [p]) or [p]:
                for _ in range(effect.amount):
                    self._draw(drawer, cite("121.1", "121.2"))
        elif kind == "discard":
            for _ in range(effect.amount):
                if self.players[p].hand:
                    card = self._chosen_discard(p, item) or self.players[p].hand[-1]
                    self._discard(p, card, cite("701.9a", "608.2d"))
        elif kind == "add":
            mana = dict(effect.mana)
            self.players[p].pool.add(mana)
            self._emit(
                "mana",
                f"{name} adds {format_mana(mana)} (the spell is not a mana ability)",
                cite("106.4", "605.5b"),
                p,
            )
        elif kind == "counter":
            assert target is not None
            countered = self._stack_item(target[1])
            assert countered is not None
            self.stack.remove(countered)
            what = f"{countered.name} (copy)" if countered.copy else countered.name
            self._emit("counter", f"{what} is countered", cite("701.6a"), p)
            if countered.card is not None:
                self._to_graveyard(countered.card)
        elif kind == "destroy":
            assert target is not None
            obj = self._object(target[1])
            assert obj is not None
            self._destroy(obj, p)
        elif kind == "pump":
            assert target is not None
            obj = self._object(target[1])
            assert obj is not None
            until = effect.until
            step = None
            player = None
            if until.startswith("your next "):
                step = parse_step(until[len("your next ") :])
                player = p
            obj.modifiers.append(
                Modifier(
                    effect.amount,
                    effect.toughness,
                    until,
                    step,
                    player,
                    effect.keywords,
                    self._new_id(),
                )
            )
            gets = (
                f"gains {' and '.join(sorted(effect.keywords))}"
                if effect.keywords
                else f"gets {effect.amount:+d}/{effect.toughness:+d}"
            )
            self._emit(
                "effect",
                f"{obj.label} {gets} until {until} ({self.power(obj)}/{self.toughness(obj)})",
                cite("611.2a"),
                p,
            )
        elif kind == "delayed":
            assert effect.delayed is not None
            delayed = DelayedTrigger(
                p,
                item.name.removesuffix(" ability").removesuffix(" trigger"),
                effect.delayed,
                effect.then,
            )
            if effect.scope == "stoppable":
                self._make_stoppable(delayed, effect, item)
            self.delayed.append(delayed)
            self._emit(
                "effect",
                f"{name} creates a delayed triggered ability: {effect.text}",
                cite("603.7", "603.7a"),
                p,
            )

    def _draw(self, p: int, rules: list[str]) -> None:
        pl = self.players[p]
        if self.layered and self._replace_draw(p):  # 614.11
            return
        if not pl.library:
            pl.drew_from_empty = True
            self._emit(
                "draw",
                f"{pl.name} attempts to draw from an empty library",
                cite("121.4", *rules),
                p,
            )
            return
        card = pl.library.pop()
        pl.hand.append(self._new_object(card.card, p))
        self._emit("draw", f"{pl.name} draws a card ({card.name})", rules, p)

    def _leave_battlefield(self, objs: list[GameObject], dies: bool, to: str = "graveyard") -> None:
        """Permanents leaving at the same time: each goes to its owner's graveyard (or exile);
        leaves-the-battlefield abilities look back in time (603.10a), so every creature leaving
        in this event sees the others leave."""
        leaving = [o for o in objs if o in self.battlefield]
        # replacement effects look at the permanents as they are on the battlefield (614.12)
        where: dict[int, str] = {}
        if self.layered and to == "graveyard":
            where = {
                o.id: self._graveyard_destination(o, dies and self.is_creature(o), o.controller)
                for o in leaving
            }
        for obj in leaving:
            self.battlefield.remove(obj)
        if self.layered:
            self._refresh_layers()
        for obj in leaving:
            owner = self.players[obj.owner]
            went = where.get(obj.id, to)
            if not owner.in_game:
                continue
            if went != "graveyard":
                self._put_instead(obj.printed or obj.card, obj.owner, went, obj.token)
            else:
                new = self._new_object(obj.printed or obj.card, obj.owner)
                new.token = obj.token
                owner.graveyard.append(new)
        if dies:
            for obj in leaving:  # 700.4: only a creature put into a graveyard dies
                if self.is_creature(obj) and where.get(obj.id, to) == "graveyard":
                    self._trigger_event("dies", obj.controller, subject=obj, lookback=leaving)


_BASIC = frozenset(
    ("damage", "gain", "lose", "draw", "discard", "add", "counter", "destroy", "pump", "delayed")
)
