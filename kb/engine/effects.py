"""What resolving spells and abilities do beyond life and cards: damage (120), counters (122),
tokens (111), exile (406), attaching Auras and Equipment (303.4, 301.5, 701.3)."""

from __future__ import annotations

from kb.engine.cards import CardDef, Effect
from kb.engine.objects import GameObject, PendingTrigger, StackObject, cite
from kb.engine.state import GameState


class Effects(GameState):
    """Damage, counters, tokens, exile and attachments, as resolving spells and abilities (and
    combat) apply them."""

    def _damage(
        self,
        recipient: tuple[str, int],
        amount: int,
        source: str,
        keywords: frozenset[str],
        controller: int,
        combat: bool,
        colors: tuple[str, ...] = (),
    ) -> None:
        """120.3: damage to a player, planeswalker or creature, with the source's deathtouch,
        infect and lifelink; a permanent with protection from one of the source's ``colors``
        is dealt none (702.16e)."""
        if amount <= 0:
            return
        shielded = self._object(recipient[1]) if colors and recipient[0] == "object" else None
        if shielded is not None and (c := self._protected_from(shielded, colors)) is not None:  # type: ignore[attr-defined]
            self._emit(
                "prevention",
                f"the {amount} damage {source} would deal to {shielded.label} is prevented: it "
                f"has protection from {c}",
                cite("702.16e", "615.1a"),
                shielded.controller,
            )
            return
        if self.layered:
            amount = self._prevent(recipient, amount, source, combat)  # 615
            if amount <= 0:
                return
        kind, ident = recipient
        what = "combat damage" if combat else "damage"
        infect = "infect" in keywords
        if kind == "player":
            pl = self.players[ident]
            if not pl.in_game:
                return
            if infect:
                pl.poison += amount
                shared = self._share_poison(ident) if self.teams is not None else ""
                self._emit(
                    "damage",
                    f"{source} deals {amount} {what} to {pl.name}, who gets {amount} poison "
                    f"counters ({pl.poison}){shared}",
                    cite("120.3b", "702.90b"),
                    ident,
                )
            else:
                pl.life -= amount
                shared = self._share_life(ident) if self.teams is not None else ""
                self._emit(
                    "damage",
                    f"{source} deals {amount} {what} to {pl.name} ({pl.life} life){shared}",
                    cite("120.3a"),
                    ident,
                )
        else:
            obj = self._object(ident)
            if obj is None:
                return
            if obj.card.is_a("planeswalker") and not self.is_creature(obj):
                left = obj.counters.get("loyalty", 0) - amount
                obj.counters["loyalty"] = max(0, left)
                self._emit(
                    "damage",
                    f"{source} deals {amount} {what} to {obj.label}: {amount} loyalty counters "
                    f"are removed ({obj.counters['loyalty']} left)",
                    cite("120.3c"),
                )
            elif infect:
                obj.counters["-1/-1"] = obj.counters.get("-1/-1", 0) + amount
                self.battlefield.watch(obj)
                self._emit(
                    "damage",
                    f"{source} deals {amount} {what} to {obj.label}: {amount} -1/-1 counters are "
                    f"put on it ({self.power(obj)}/{self.toughness(obj)})",
                    cite("120.3d", "702.90c"),
                )
            else:
                obj.damage += amount
                self.battlefield.watch(obj)  # a creature already; state-based actions see it
                deathtouch = "deathtouch" in keywords
                if deathtouch:
                    obj.deathtouch_damage = True
                self._emit(
                    "damage",
                    f"{source} deals {amount} {what} to {obj.label} ({obj.damage} damage marked, "
                    f"toughness {self.toughness(obj)})",
                    cite("120.3e", "702.2b") if deathtouch else cite("120.3e"),
                )
        if "lifelink" in keywords and self.players[controller].in_game:
            pl = self.players[controller]
            pl.life += amount
            shared = self._share_life(controller) if self.teams is not None else ""
            self._emit(
                "life",
                f"{source} has lifelink: {pl.name} gains {amount} life ({pl.life}){shared}",
                cite("120.3f", "702.15b"),
                controller,
            )

    def _apply_more(
        self, effect: Effect, p: int, item: StackObject, target: tuple[str, int] | None
    ) -> None:
        """Counters, poison, tokens, exile, divided damage and attaching."""
        if self._apply_zone_change(effect, p, item, target):
            return
        if effect.kind in ("scry", "surveil"):
            self._look_at_top(effect, p, item)
            return
        kind = effect.kind
        if kind == "continuous":  # 611.2a, 613 (kb.engine.continuous)
            self._create_continuous(effect, p, item, target)
        elif kind == "shield":  # 614, 615 (kb.engine.replacement)
            self._create_shield(effect, p, item, target)
        elif kind == "sacrifice":
            self._sacrifice(effect, p, item, target)
        elif kind == "counters":
            if target is not None:
                objs = [o for o in [self._object(target[1])] if o is not None]
            else:
                objs = [o for o in self.battlefield.of(p) if self.is_creature(o)]
            for obj in objs:
                obj.counters[effect.counter] = obj.counters.get(effect.counter, 0) + effect.amount
                self.battlefield.watch(obj)
                self._emit(
                    "counters",
                    f"{effect.amount} {effect.counter} counter{'s' * (effect.amount > 1)} "
                    f"{'are' if effect.amount > 1 else 'is'} put on {obj.label} "
                    f"({self.power(obj)}/{self.toughness(obj)})",
                    cite("122.1a", "122.6"),
                    p,
                )
        elif kind == "poison":
            for o in self._players_named(effect, p, target, self.opponents(p)) or []:
                pl = self.players[o]
                pl.poison += effect.amount
                shared = self._share_poison(o) if self.teams is not None else ""
                self._emit(
                    "counters",
                    f"{pl.name} gets {effect.amount} poison counter"
                    f"{'s' * (effect.amount > 1)} ({pl.poison}){shared}",
                    cite("122.1f"),
                    o,
                )
        elif kind == "token":
            card = CardDef(
                name=effect.counter,
                types=("creature",),
                cost=None,
                power=effect.power,
                toughness=effect.toughness,
                keywords=effect.keywords,
                text="token",
            )
            for _ in range(effect.amount):
                self._enter(
                    card,
                    p,
                    token=True,
                    said=lambda obj: self._emit(
                        "token",
                        f"{self.players[p].name} creates a {effect.power}/{effect.toughness} "
                        f"{obj.label} (a token)",
                        cite("111.1", "111.2", "701.7a"),
                        p,
                    ),
                )
        elif kind == "exile":
            assert target is not None
            obj = self._object(target[1])
            assert obj is not None
            self._emit("exile", f"{obj.label} is exiled", cite("701.13a", "406.3"), p)
            self._leave_battlefield([obj], dies=False, to="exile")
        elif kind == "divided":
            assert target is not None
            index = item.targets.index(target)
            amount = item.division[index] if item.division else effect.amount
            colors = self._item_colors(item)  # type: ignore[attr-defined]
            self._damage(target, amount, item.name, item.keywords, p, combat=False, colors=colors)
        elif kind == "time":
            self._suspend_tick(p, effect.amount)
        elif kind == "attach":
            assert target is not None
            host = self._object(target[1])
            assert host is not None
            if item.source is not None:  # equip: attach the Equipment
                gear = self._object(item.source.id)
                if gear is None:
                    return
                gear.attached_to = host.id
                gear.stamp = self._new_id()  # 613.7e: a new timestamp as it becomes attached
                self.attachments = True
                self._emit(
                    "attach",
                    f"{gear.label} becomes attached to {host.label} "
                    f"({self.power(host)}/{self.toughness(host)})",
                    cite("702.6a", "301.5a", "701.3a"),
                    p,
                )

    def _enter_attached(self, item: StackObject, p: int) -> GameObject | None:
        """608.3c: an Aura spell enters attached to the object it targets."""
        assert item.card is not None
        host = self._object(item.targets[0][1]) if item.targets else None
        if host is None:
            self._to_graveyard(item.card)
            return None

        def said(obj: GameObject) -> None:
            obj.attached_to = host.id  # it enters attached (303.4b), before anything looks
            self.attachments = True
            self._emit(
                "enter",
                f"{obj.label} enters the battlefield attached to {host.label} "
                f"({self.power(host)}/{self.toughness(host)})",
                cite("608.3c", "303.4b"),
                p,
            )

        return self._enter(item.card.card, p, said=said)

    def _suspend_tick(self, p: int, card_id: int) -> None:
        """702.62a: remove a time counter; when the last is removed, cast the card without
        paying its mana cost (a creature spell cast this way gains haste)."""
        pl = self.players[p]
        card = next((c for c in pl.exile if c.id == card_id), None)
        if card is None or card.counters.get("time", 0) <= 0:
            return
        card.counters["time"] -= 1
        left = card.counters["time"]
        self._emit(
            "counters",
            f"a time counter is removed from {card.name} ({left} left)",
            cite("702.62a"),
            p,
        )
        if left:
            return
        targets = self._auto_targets(PendingTrigger(p, card.name, card.card.effects, ""))
        if targets is None:
            self._emit(
                "note",
                f"{card.name} has no legal target: it can't be cast and stays in exile",
                cite("702.62a"),
                p,
            )
            return
        pl.exile.remove(card)
        item = StackObject(
            self._new_id(),
            "spell",
            card.name,
            p,
            card.card.effects,
            targets,
            card,
            haste=card.card.is_a("creature"),
        )
        self.stack.append(item)
        self._emit(
            "cast",
            f"the last time counter is removed: {pl.name} casts {card.name} without paying its "
            "mana cost" + (" (it gains haste)" if item.haste else ""),
            cite("702.62a", "702.62d"),
            p,
        )
        self._trigger_event("cast", controller=p)
