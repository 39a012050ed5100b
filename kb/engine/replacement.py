"""Replacement and prevention effects (614-616) and regeneration (701.19).

Static abilities (Rest in Peace, "this enters tapped", Laboratory Maniac) and effects created by
resolving spells and abilities (a regeneration shield, "prevent the next 3 damage", Fog) watch
for an event and change it as it would happen: an object put into a graveyard (or dying),
destroyed, entering, a card drawn, damage dealt. When several could apply, the affected object's
controller or the affected player chooses one (616.1), self-replacement effects first (616.1a);
the choice is announced beforehand with ``<player> applies <source> first`` (else the earliest
effect applies). Each effect applies to one event once (614.5, 616.1f).
"""

from __future__ import annotations

from dataclasses import dataclass

from kb.engine.cards import CardDef, Effect, unquote
from kb.engine.layer_text import ReplacementSpec
from kb.engine.objects import Action, GameObject, IllegalAction, StackObject, cite
from kb.engine.state import GameState


@dataclass(slots=True, eq=False)
class Shield:
    """A replacement or prevention effect created by a resolving spell or ability (614.3):
    what it watches (an object or player, or every event of its kind) until used up or until
    the turn ends."""

    spec: ReplacementSpec
    name: str  # the spell or ability that created it
    controller: int
    stamp: int
    target: tuple[str, int] | None
    remaining: int = 0  # prevention shields: the damage still to prevent (615.7)
    item: int | None = None  # a self-replacement effect: the resolving spell's id (614.15)
    used: int = 0


@dataclass(slots=True, eq=False)
class Option:
    """One replacement or prevention effect that could apply to an event."""

    name: str
    spec: ReplacementSpec
    stamp: int
    shield: Shield | None = None


_WHERE = {
    "exile": "it is exiled instead",
    "library": "it is shuffled into its owner's library instead",
    "hand": "it is returned to its owner's hand instead",
}


class Replacements(GameState):
    """Replacement and prevention effects (614-616) and regeneration (701.19)."""

    # ---- creating shields -------------------------------------------------------------------
    def _create_shield(
        self, effect: Effect, p: int, item: StackObject, target: tuple[str, int] | None
    ) -> None:
        """614.3, 615.3: a resolving spell or ability creates a replacement or prevention
        effect; it lasts until used up or until the turn ends."""
        spec: ReplacementSpec = effect.spec
        if spec.who == "self":  # "regenerate this creature": the ability's source
            target = ("object", item.source.id) if item.source is not None else None
        elif spec.who == "you":
            target = ("player", p)
        if spec.who in ("self", "that creature") and (
            target is None or self._object(target[1]) is None
        ):
            return
        shield = Shield(spec, item.name, p, self._new_id(), target, spec.amount)
        self.shields.append(shield)
        self.layered = True
        what = self.target_label(target) if target is not None else ""
        if spec.result == "regenerate":
            text = f"{what} gets a regeneration shield this turn"
            rules = cite("701.19a", "614.1a")
        elif spec.result == "prevent" and target is None:
            text = "all combat damage that would be dealt this turn will be prevented"
            rules = cite("615.1a", "615.3")
        elif spec.result == "prevent":
            text = f"the next {spec.amount} damage that would be dealt to {what} this turn will be prevented"
            rules = cite("615.7")
        else:
            text = f"if {what} would die this turn, it will be exiled instead"
            rules = cite("614.1a", "614.3")
        self._emit("effect", f"{item.name}: {text}", rules, p)

    def _begin_self_replacements(self, item: StackObject) -> None:
        """614.15: "if it would die this way, exile it instead" waits for the spell's own
        event, on its first targeted creature, while the spell resolves."""
        target = next((t for t in item.targets if t[0] == "object"), None)
        for effect in item.effects:
            if effect.kind == "shield" and effect.spec.self_replacement and target:
                self.shields.append(
                    Shield(
                        effect.spec,
                        item.name,
                        item.controller,
                        self._new_id(),
                        target,
                        item=item.id,
                    )
                )
                self.layered = True

    def _end_self_replacements(self, item: StackObject) -> None:
        self.shields = [s for s in self.shields if s.item != item.id]

    def _expire_shields(self) -> None:
        """514.2: effects that last "this turn" end in the cleanup step, and announced choices
        of 616.1 that were never needed lapse."""
        self.shields = [s for s in self.shields if not s.spec.this_turn]
        for p in list(self.replace_first):
            name = self.replace_first.pop(p)
            self._emit(
                "note",
                f"{self.players[p].name}'s announced choice to apply {name} first lapses unused",
                cite("616.1"),
                p,
            )
        for p in list(self.shield_first):
            name = self.shield_first.pop(p)
            self._emit(
                "note",
                f"{self.players[p].name}'s announced choice to prevent {name}'s damage first "
                "lapses unused",
                cite("615.7"),
                p,
            )

    # ---- choosing among several (616.1) -----------------------------------------------------
    def _choose(self, options: list[Option], chooser: int, event: str) -> tuple[Option, str]:
        """616.1: self-replacement effects first (616.1a), then the affected player's announced
        choice, else the earliest effect; returns it and the trace's explanation."""
        selfish = [o for o in options if o.spec.self_replacement]
        if selfish:
            pick = min(selfish, key=lambda o: o.stamp)
            if len(options) > 1:
                return pick, " (a self-replacement effect applies first, 616.1a)"
            return pick, ""
        if len(options) == 1:
            return options[0], ""
        who = self.players[chooser].name
        wanted = self.replace_first.get(chooser)
        for o in options:
            if wanted is not None and o.name.lower() == wanted:
                del self.replace_first[chooser]
                return o, f" ({who} chooses which applies to {event} first, 616.1)"
        pick = min(options, key=lambda o: o.stamp)
        return pick, f" ({who} announced no choice: the earliest effect applies first, 616.1)"

    def _statics(self, event: str) -> list[tuple[GameObject, ReplacementSpec]]:
        """The replacement effects of static abilities of permanents, for an event."""
        return [
            (obj, spec)
            for obj in self.battlefield
            if obj.card.replacements and not obj.face_down
            for spec in obj.card.replacements
            if spec.event == event
        ]

    # ---- put into a graveyard, dying (614.1a, 616.1) ----------------------------------------
    def _graveyard_destination(self, obj: GameObject, dying: bool, chooser: int) -> str:
        """Where a card or permanent that would be put into a graveyard goes instead: one
        applicable effect at a time until none is left (616.1f); "graveyard" when none."""
        options: list[Option] = []
        for src, spec in self._statics("graveyard"):
            if spec.who == "any" or (spec.who == "self" and src is obj):
                options.append(Option(src.name, spec, src.id))
        for spec in obj.card.replacements:  # "from anywhere": its own ability (113.6)
            if spec.event == "graveyard" and spec.who == "self" and obj not in self.battlefield:
                options.append(Option(obj.name, spec, obj.id))
        if dying:
            for src, spec in self._statics("die"):
                if (
                    spec.who == "any"
                    or (spec.who == "self" and src is obj)
                    or (spec.who == "yours" and src.controller == obj.controller)
                    or (spec.who == "opponents" and src.controller != obj.controller)
                ):
                    options.append(Option(src.name, spec, src.id))
            for shield in self.shields:
                if shield.spec.event == "die" and shield.target == ("object", obj.id):
                    options.append(Option(shield.name, shield.spec, shield.stamp, shield))
        if not options:
            return "graveyard"
        option, why = self._choose(options, chooser, f"{obj.label}")
        if option.shield is not None:
            option.shield.used += 1
        would = "die" if dying else "be put into a graveyard"
        rules = cite("614.1a", "614.6")
        if option.spec.self_replacement:
            rules.append("614.15")
        if len(options) > 1:
            rules.append("616.1")
        self._emit(
            "replacement",
            f"{obj.label} would {would}; {option.name}'s effect replaces that: "
            f"{_WHERE[option.spec.result]}{why}",
            rules,
            chooser,
        )
        return option.spec.result

    def _put_instead(self, card: CardDef, owner: int, where: str, token: bool) -> None:
        """A card that would have gone to a graveyard goes to exile, a library or a hand."""
        pl = self.players[owner]
        new = self._new_object(card, owner)
        new.token = token
        if where == "exile":
            pl.exile.append(new)
        elif where == "hand":
            pl.hand.append(new)
        else:  # shuffled into the library: the engine puts it at the bottom (deterministic)
            pl.library.insert(0, new)

    # ---- destruction: regeneration (701.19a) ------------------------------------------------
    def _regeneration_shield(self, obj: GameObject) -> Shield | None:
        """The permanent's earliest unused regeneration shield, if any."""
        shields = [
            s
            for s in self.shields
            if s.spec.result == "regenerate" and not s.used and s.target == ("object", obj.id)
        ]
        return min(shields, key=lambda s: s.stamp) if shields else None

    def _regenerate(self, obj: GameObject) -> bool:
        """701.19a: the next time it would be destroyed this turn, its damage is removed, it
        taps and leaves combat instead."""
        shield = self._regeneration_shield(obj)
        if shield is None:
            return False
        shield.used = 1
        self.shields.remove(shield)
        obj.damage = 0
        obj.deathtouch_damage = False
        obj.tapped = True
        combat = obj.attacking is not None or obj.blocking is not None
        obj.attacking = obj.attacking_planeswalker = obj.blocking = None
        obj.also_blocking = ()
        self._emit(
            "replacement",
            f"{obj.label} would be destroyed; its regeneration shield ({shield.name}) replaces "
            "that: its damage is removed and it is tapped"
            + (", and it is removed from combat" if combat else ""),
            cite("701.19a", "614.1a"),
            obj.controller,
        )
        return True

    # ---- entering (614.1c-d, 614.12) --------------------------------------------------------
    def _enter_replacements(self, obj: GameObject, cdef: CardDef, controller: int) -> None:
        """614.12: how a permanent enters, from its own abilities and others' (tapped, with
        counters), checked with its characteristics as it would exist."""
        applied: list[tuple[str, ReplacementSpec]] = []
        for spec in cdef.replacements:
            if spec.event == "enter" and spec.who == "self":
                applied.append((cdef.name, spec))
        for src, spec in self._statics("enter"):
            kind = spec.who.split()[-1]
            if spec.who.startswith("opponents") and src.controller != controller:
                if kind == "permanent" or kind in cdef.types:
                    applied.append((src.name, spec))
            elif (
                spec.who == "other yours"
                and src.controller == controller
                and "creature" in cdef.types
            ):
                applied.append((src.name, spec))
        for name, spec in applied:
            if spec.result == "tapped":
                obj.tapped = True
                done = "it enters tapped"
            else:
                obj.counters["+1/+1"] = obj.counters.get("+1/+1", 0) + spec.amount
                n = spec.amount
                done = f"it enters with {n} +1/+1 counter{'s' * (n > 1)}"
            source = "its own ability" if name == cdef.name else f"{name}'s effect"
            self._emit(
                "replacement",
                f"{cdef.name}: {source} replaces how it enters: {done}",
                cite("614.1c" if source == "its own ability" else "614.1d", "614.12"),
                controller,
            )

    # ---- drawing (614.11) -------------------------------------------------------------------
    def _replace_draw(self, p: int) -> bool:
        """614.11: an effect that replaces a draw applies even with an empty library; True when
        the draw was replaced."""
        pl = self.players[p]
        options = [
            Option(src.name, spec, src.id)
            for src, spec in self._statics("draw")
            if src.controller == p
            and (not spec.empty_library or not pl.library)
            and src.id not in self.replacing  # 614.5: not within its own replacement
        ]
        if not options:
            return False
        option, why = self._choose(options, p, "the draw")
        rules = cite("614.11", "614.6")
        if len(options) > 1:
            rules.append("616.1")
        if option.spec.result == "win":
            self._emit(
                "replacement",
                f"{pl.name} would draw a card with no cards in their library; {option.name}'s "
                f"effect replaces that: {pl.name} wins the game{why}",
                [*rules, "104.2b"],
                p,
            )
            self._leave([q for q in self.opponents(p)], "lost")
            return True
        self._emit(
            "replacement",
            f"{pl.name} would draw a card; {option.name}'s effect replaces that: "
            f"{option.spec.instead} instead{why}",
            rules,
            p,
        )
        item = StackObject(self._new_id(), "replacement", option.name, p, option.spec.effects, [])
        self.replacing.add(option.stamp)
        try:
            for effect in option.spec.effects:
                self._apply(effect, p, item, None)
        finally:
            self.replacing.discard(option.stamp)
        return True

    # ---- damage: prevention (615) -----------------------------------------------------------
    def _prevent(self, recipient: tuple[str, int], amount: int, source: str, combat: bool) -> int:
        """615.1: prevention effects that apply to this damage, in the affected player's (or
        controller's) order; returns the damage still dealt."""
        kind, ident = recipient
        if kind == "player":
            chooser = ident
            label = self.players[ident].name
        else:
            obj = self._object(ident)
            if obj is None:
                return amount
            chooser, label = obj.controller, obj.label
        options: list[Option] = []
        for shield in self.shields:
            spec = shield.spec
            if spec.result != "prevent" or (shield.remaining <= 0 and spec.event == "damage"):
                continue
            combat_fog = spec.event == "combat damage" and combat
            if combat_fog or (spec.event == "damage" and shield.target == recipient):
                options.append(Option(shield.name, spec, shield.stamp, shield))
        if kind == "player":
            for src, spec in self._statics("damage"):
                if src.controller == ident and spec.result == "prevent":
                    options.append(Option(src.name, spec, src.id))
        while options and amount > 0:
            option, why = self._choose(options, chooser, f"the damage {source} would deal")
            options.remove(option)
            shield = option.shield
            if shield is not None and shield.spec.event == "combat damage":
                stopped = amount
            elif shield is not None:
                stopped = min(amount, shield.remaining)
                shield.remaining -= stopped
            else:
                stopped = min(amount, option.spec.amount)  # 615.10: each event
            amount -= stopped
            left = (
                f" ({shield.remaining} left in the shield)"
                if shield and shield.spec.event == "damage"
                else ""
            )
            rules = cite("615.1a", "615.6")
            if shield is not None and shield.spec.event == "damage":
                rules.append("615.7")
            elif shield is None:
                rules.append("615.10")
            self._emit(
                "prevention",
                f"{stopped} of the damage {source} would deal to {label} is prevented by "
                f"{option.name}{left}{why}",
                rules,
                chooser,
            )
        return amount

    def _order_for_shields(
        self, assignments: list[tuple[GameObject, tuple[str, int], int]]
    ) -> list[tuple[GameObject, tuple[str, int], int]]:
        """615.7: when two or more sources would deal damage at once to a player or permanent
        with a shield that prevents the next N damage, that player (or the permanent's
        controller) chooses which damage the shield prevents: the announced source's damage
        comes first (``Bob prevents Hill Giant's damage first``), else the sources' order."""
        for shield in self.shields:
            if shield.spec.event != "damage" or shield.remaining <= 0 or shield.target is None:
                continue
            hits = [a for a in assignments if a[1] == shield.target]
            if len({a[0].id for a in hits}) < 2:
                continue
            kind, ident = shield.target
            holder = self._object(ident) if kind == "object" else None
            chooser = holder.controller if holder is not None else ident
            who = self.players[chooser].name
            wanted = self.shield_first.pop(chooser, None)
            first = next(
                (a for a in hits if wanted in (a[0].name.lower(), a[0].label.lower())), None
            )
            if first is None:
                why = (
                    f"{who} announced no choice ('{who} prevents <source>'s damage first'): it "
                    f"takes {hits[0][0].label}'s damage first"
                )
            else:
                why = f"{who} chooses {first[0].label}'s damage"
                assignments = [first, *(a for a in assignments if a is not first)]
            self._emit(
                "choice",
                f"{shield.name}'s shield would prevent damage from {len(hits)} sources dealt at "
                f"once: {why}",
                cite("615.7"),
                chooser,
            )
        return assignments

    def _check_shield_first(self, p: int, action: Action) -> str:
        """615.7: the player names a source; a shield protecting them or what they control must
        exist."""
        self._check_in_game(p, action)
        name = unquote(str(action.card or ""))
        mine = [
            s
            for s in self.shields
            if s.spec.event == "damage"
            and s.remaining > 0
            and s.target is not None
            and (
                s.target == ("player", p)
                or (
                    s.target[0] == "object"
                    and (o := self._object(s.target[1])) is not None
                    and o.controller == p
                )
            )
        ]
        if not mine:
            raise IllegalAction(
                f"no shield preventing the next damage protects {self.players[p].name} or what "
                "they control: there is nothing to choose",
                "615.7",
            )
        return name

    def _apply_shield_first(self, p: int, name: str) -> None:
        self.shield_first[p] = name.lower()
        self._emit(
            "choice",
            f"{self.players[p].name} will have their shield prevent {name}'s damage first if "
            "several sources deal damage at once",
            cite("615.7"),
            p,
        )

    # ---- the announced choice (616.1) --------------------------------------------------------
    def _replacement_sources(self) -> set[str]:
        names = {o.name.lower() for o in self.battlefield if o.card.replacements}
        names |= {s.name.lower() for s in self.shields}
        return names

    def _check_replace_first(self, p: int, action: Action) -> str:
        """616.1: the affected player names one of the replacement or prevention effects that
        exist now."""
        self._check_in_game(p, action)
        name = unquote(str(action.card or "")).removesuffix("'s effect")
        if name.lower() not in self._replacement_sources():
            raise IllegalAction(
                f"{name} is not the source of a replacement or prevention effect in the game",
                "616.1",
            )
        return name

    def _apply_replace_first(self, p: int, name: str) -> None:
        self.replace_first[p] = name.lower()
        self._emit(
            "choice",
            f"{self.players[p].name} will apply {name}'s effect first when several replacement "
            "or prevention effects would modify an event that affects them or what they control",
            cite("616.1"),
            p,
        )
