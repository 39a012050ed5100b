"""Casting spells (601) and activating abilities (602), and choosing their targets (115)."""

from __future__ import annotations

from typing import Any

from kb.engine.cards import Ability, CardDef, Effect, unquote
from kb.engine.keywords import PROTECTIONS
from kb.engine.mana import ManaCost
from kb.engine.objects import (
    MORPH_COST,
    TARGET_WORDS,
    Action,
    ActivatePlan,
    CastPlan,
    GameObject,
    IllegalAction,
    ManaPlan,
    StackObject,
    cite,
)
from kb.engine.state import GameState


class Casting(GameState):
    """Casting spells (601) and activating abilities (602), and choosing their targets (115)."""

    def _resolve_target(
        self,
        ref: str | tuple[str, int],
        kind: str,
        controller: int | None = None,
        source: int | None = None,
    ) -> tuple[str, int]:
        if isinstance(ref, tuple):
            return ref
        who, name = self._split_owner(ref)
        if who is None and kind in ("any", "player"):
            for pl in self.players:
                if pl.name.lower() == name.lower():
                    return ("player", pl.index)
        if kind in SPELL_TARGETS:
            for item in reversed(self.stack):
                if (
                    item.kind == "spell"
                    and item.name.lower() == name.lower()
                    and who in (None, item.controller)
                    and (kind == "spell" or _instant_or_sorcery(item))
                ):
                    return ("object", item.id)
            raise IllegalAction(f"there is no spell {name} on the stack", "115.1", "601.2c")
        return self.pick_permanent(
            name, who, lambda obj: self._legal_object_target(obj, kind, controller, source)
        )

    def _legal_object_target(
        self, obj: GameObject, kind: str, controller: int | None, source: int | None = None
    ) -> tuple[str, int]:
        """A permanent as a target: the first of its name that is legal for ``kind`` (115.1)."""
        target = ("object", obj.id)
        if not self._target_legal(target, kind, source, controller):
            self._refuse_protected(target, controller, source)
            raise IllegalAction(f"{obj.label} is not {TARGET_WORDS[kind]}", "115.1", "601.2c")
        return target

    def _refuse_protected(
        self, target: tuple[str, int], controller: int | None, source: int | None = None
    ) -> None:
        """Refuse a target that hexproof, shroud or protection protects, citing that rule
        (115.1, 601.2c)."""
        obj = self._object(target[1]) if target[0] == "object" else None
        colors = self._source_colors(source) if obj is not None else ()
        why = self._untargetable(obj, controller, colors) if obj is not None else None
        if why is not None:
            raise IllegalAction(why[0], why[1], "115.1", "601.2c")

    def target_label(self, target: tuple[str, int]) -> str:
        """A target as text."""
        kind, ident = target
        if kind == "player":
            in_range = 0 <= ident < len(self.players)
            return self.players[ident].name if in_range else f"player #{ident} (no such player)"
        obj = self._object(ident)
        if obj is not None:
            return obj.label
        item = self._stack_item(ident)
        return item.name if item is not None else f"#{ident} (gone)"

    def _target_legal(
        self,
        target: tuple[str, int],
        kind: str,
        source: int | None = None,
        controller: int | None = None,
        colors: tuple[str, ...] | None = None,
    ) -> bool:
        """Whether ``target`` is legal for a target word of ``kind`` of a spell or ability
        (``source``: its id, whose colors protection looks at, 702.16b; or its ``colors``)."""
        tkind, ident = target
        if tkind == "player":
            return (
                kind in ("any", "player")
                and 0 <= ident < len(self.players)
                and self.players[ident].in_game
            )
        if kind in SPELL_TARGETS:
            item = self._stack_item(ident)
            return (
                item is not None
                and item.kind == "spell"
                and item.id != source
                and (kind == "spell" or _instant_or_sorcery(item))
            )
        obj = self._object(ident)
        if obj is None:
            return False
        if kind == "permanent":
            return self._untargetable_by(obj, controller, source, colors) is None
        if not self.is_creature(obj):
            # "any target" is a creature, player, planeswalker or battle (115.4)
            return (
                kind == "any"
                and obj.card.is_a("planeswalker")
                and self._untargetable_by(obj, controller, source, colors) is None
            )
        if kind == "yours":
            legal = obj.controller == controller and obj.id != source
        else:
            legal = kind in ("any", "creature")
        return legal and self._untargetable_by(obj, controller, source, colors) is None

    def _untargetable_by(
        self,
        obj: GameObject,
        controller: int | None,
        source: int | None,
        colors: tuple[str, ...] | None,
    ) -> tuple[str, str] | None:
        """:meth:`_untargetable` with the colors of the spell or ability's source, looked up
        only when the permanent has protection."""
        if colors is None:
            protected = not obj.card.keywords.isdisjoint(PROTECTIONS) or bool(
                obj.modifiers or self.attachments
            )
            colors = self._source_colors(source) if protected else ()
        return self._untargetable(obj, controller, colors)

    def _choose_targets(
        self,
        effects: tuple[Effect, ...],
        refs: tuple[str | tuple[str, int], ...],
        source: int | None = None,
        controller: int | None = None,
    ) -> list[tuple[str, int]]:
        kinds = [e.target for e in effects if e.target]
        if len(refs) != len(kinds):
            need = ", ".join(TARGET_WORDS[k] for k in kinds) or "no target"
            raise IllegalAction(f"it needs {need}; {len(refs)} given", "601.2c")
        chosen: list[tuple[str, int]] = []
        for ref, kind in zip(refs, kinds, strict=True):
            assert kind is not None
            target = self._resolve_target(ref, kind, controller, source)
            if not self._target_legal(target, kind, source, controller):
                self._refuse_protected(target, controller, source)
                raise IllegalAction(
                    f"{self.target_label(target)} is not {TARGET_WORDS[kind]}", "115.1", "601.2c"
                )
            if target in chosen and kind == "any" and any(e.kind == "divided" for e in effects):
                raise IllegalAction(
                    f"{self.target_label(target)} is chosen twice: one object or player can't "
                    "be chosen twice for one word 'target'",
                    "115.3",
                )
            chosen.append(target)
        return chosen

    def _check_cast(self, p: int, action: Action) -> CastPlan:
        memo = self.plan_memo
        if memo is None:
            card, effects, cost = self._check_cast_base(p, action)
        else:
            found = self._cast_base_memo(p, action, memo)
            if isinstance(found, IllegalAction):
                raise found
            card, effects, cost = found
            # Only legality counts while listing, not which rule is cited first: the payment,
            # memoised per cost and shared by every choice of targets, is checked first.
            payment = self._payment_plan(p, cost)
            targets = self._choose_targets(effects, action.targets, card.id, p)
            return CastPlan(
                card,
                effects,
                cost,
                targets,
                payment,
                action.face_down,
                action.division,
                action.zone,
            )
        targets = self._choose_targets(effects, action.targets, card.id, p)
        payment = self._payment_plan(p, cost)
        return CastPlan(
            card, effects, cost, targets, payment, action.face_down, action.division, action.zone
        )

    def _cast_base_memo(
        self, p: int, action: Action, memo: dict[Any, Any]
    ) -> tuple[GameObject, tuple[Effect, ...], ManaCost] | IllegalAction:
        """While legal actions are listed, what doesn't depend on the targets is checked once
        per card (the game can't change meanwhile): the result of :meth:`_check_cast_base`, or
        its refusal."""
        key = (
            "cast",
            p,
            action.card,
            action.zone,
            action.face_down,
            action.mode,
            len(action.targets),
            action.division,
        )
        found = memo.get(key)
        if found is None:
            try:
                found = self._check_cast_base(p, action)
            except IllegalAction as err:
                found = err
            memo[key] = found
        return found  # type: ignore[no-any-return]

    def _check_cast_base(
        self, p: int, action: Action
    ) -> tuple[GameObject, tuple[Effect, ...], ManaCost]:
        """601.2a-b and timing: the card, its mode and cost, before targets and payment."""
        self._need_priority(p, "117.1a")
        if action.card is None:
            raise IllegalAction("no card named: a spell is cast from a hand", "601.2a")
        if action.zone == "exile":
            card = self._find_in_exile(p, action.card)
        else:
            card = self._find_in_hand(p, action.card)
        cdef = card.card
        if cdef.is_a("land"):
            raise IllegalAction(f"{cdef.name} is a land: it is played, not cast", "305.1", "305.9")
        if cdef.cost is None and not action.face_down:
            raise IllegalAction(f"{cdef.name} is an unknown card", "601.2")
        self._check_split_second("cast a spell")
        instant = cdef.is_a("instant") or "flash" in cdef.keywords
        if action.face_down:
            if cdef.morph is None:
                raise IllegalAction(
                    f"{cdef.name} has no morph ability: it can't be cast face down", "702.37d"
                )
            effects: tuple[Effect, ...] = ()
            cost = MORPH_COST
            instant = False
        else:
            effects = self._chosen_mode(cdef, action.mode)
            cost = cdef.cost or ManaCost()
        if action.zone == "exile":
            cost = self._exile_cast_cost(p, card)
        if not instant:
            self._check_sorcery_timing(p, cdef, face_down=action.face_down)
        if cdef.divides and any(e.kind == "divided" for e in effects):
            effects = self._divided_effects(effects, action)
        return card, effects, cost

    def _chosen_mode(self, cdef: CardDef, mode: int | None) -> tuple[Effect, ...]:
        """700.2a, 601.2b: the controller of a modal spell chooses its mode as it is cast."""
        if not cdef.modes:
            if mode is not None:
                raise IllegalAction(f"{cdef.name} is not a modal spell", "700.2")
            return cdef.effects
        if mode is None or not 1 <= mode <= len(cdef.modes):
            raise IllegalAction(
                f"{cdef.name} is modal: choose mode 1 to {len(cdef.modes)} as it is cast "
                "(casts … choosing mode N)",
                "700.2a",
                "601.2b",
            )
        return cdef.modes[mode - 1] + cdef.effects

    def _divided_effects(self, effects: tuple[Effect, ...], action: Action) -> tuple[Effect, ...]:
        """601.2d: damage divided among one or two targets, each getting at least 1."""
        divided = next(e for e in effects if e.kind == "divided")
        n = len(action.targets)
        if not 1 <= n <= 2:
            raise IllegalAction(f"{divided.text}: choose one or two targets, not {n}", "601.2c")
        if n == 1 and not action.division:
            return (divided,)
        if len(action.division) != n or sum(action.division) != divided.amount:
            raise IllegalAction(
                f"announce how the {divided.amount} damage is divided among the {n} targets "
                "(targeting A (N), B (M))",
                "601.2d",
            )
        if min(action.division) < 1:
            raise IllegalAction("each target of a division gets at least 1", "601.2d")
        return (divided,) * n

    def _find_in_exile(self, p: int, ref: str | int) -> GameObject:
        name = unquote(ref).lower() if isinstance(ref, str) else None
        for obj in self.players[p].exile:
            if obj.id == ref or obj.name.lower() == name:
                return obj
        raise IllegalAction(
            f"{ref} is not in exile under {self.players[p].name}'s ownership", "601.2a"
        )

    def _exile_cast_cost(self, p: int, card: GameObject) -> ManaCost:
        """A foretold card is cast for its foretell cost, a plotted card for free, on a later
        turn (702.143a, 702.170d)."""
        cdef = card.card
        if card.exiled_as == "foretold":
            if card.exiled_turn == self.turn:
                raise IllegalAction(
                    f"{cdef.name} was foretold this turn: it can be cast after this turn ends",
                    "702.143a",
                )
            assert cdef.foretell is not None
            return cdef.foretell
        if card.exiled_as == "plotted":
            if card.exiled_turn == self.turn:
                raise IllegalAction(
                    f"{cdef.name} was plotted this turn: it can be cast on a later turn",
                    "702.170d",
                )
            if not self._is_active(p) or not self.step.is_main or self.stack:
                raise IllegalAction(
                    f"a plotted card is cast during its owner's main phase while the stack is "
                    f"empty (it is {self.players[self.active].name}'s {self.step.label})",
                    "702.170d",
                )
            return ManaCost()
        raise IllegalAction(f"nothing allows {cdef.name} to be cast from exile", "601.2a")

    def _apply_cast(self, p: int, plan: CastPlan) -> None:
        """601.2a–i: the card moves to the stack, its targets are announced, its cost is paid."""
        card, targets = plan.card, plan.targets
        cdef = card.card
        zone = self.players[p].exile if plan.zone == "exile" else self.players[p].hand
        zone.remove(card)
        item = StackObject(
            self._new_id(),
            "spell",
            cdef.name,
            p,
            plan.effects,
            targets,
            card,
            plan.face_down,
            division=plan.division,
        )
        self.stack.append(item)
        label = "a face-down creature spell" if plan.face_down else cdef.name
        aimed = ""
        if targets:
            shown = [self.target_label(t) for t in targets]
            if plan.division:
                shown = [f"{t} ({n})" for t, n in zip(shown, plan.division, strict=True)]
            aimed = f" targeting {', '.join(shown)}"
        response = " in response to " + self.stack[-2].name if len(self.stack) > 1 else ""
        rules = cite("601.2", "601.2c") if targets else cite("601.2")
        if plan.division:
            rules.append("601.2d")
        if cdef.modes and not plan.face_down:
            mode = cdef.modes.index(plan.effects[: len(plan.effects) - len(cdef.effects)]) + 1
            aimed = f" choosing mode {mode}{aimed}"
            rules += ["601.2b", "700.2a"]
        if response:
            rules.append("117.7")
        how = ""
        if plan.zone == "exile":
            how = " from exile"
            if card.exiled_as == "foretold":
                how += f" for its foretell cost {plan.cost}"
                rules.append("702.143a")
            else:
                how += " without paying its mana cost (plotted)"
                rules.append("702.170d")
        if plan.face_down:
            rules.append("702.37c")
        elif cdef.is_a("instant"):
            rules.append("304.1")
        elif "flash" in cdef.keywords:
            rules.append("702.8a")
        self._emit("cast", f"{self.players[p].name} casts {label}{how}{aimed}{response}", rules, p)
        self._pay(p, plan.cost, plan.payment, label)
        self._trigger_event("cast", controller=p)
        self._after_action(p, "117.3c", adds_to_stack=True)
        self._run_shortcut()

    def _check_split_second(self, what: str) -> None:
        for item in self.stack:
            if item.split_second:
                raise IllegalAction(
                    f"{item.name} (split second) is on the stack: players can't {what}; "
                    "only mana abilities and special actions are allowed",
                    "702.61a",
                )

    def _sorcery_window(self, p: int) -> bool:
        """307.1, 117.1a: the player's own main phase with an empty stack."""
        return (
            (p == self.active or self._same_team(p, self.active))
            and self.step.is_main
            and not self.stack
        )

    def _split_second_on_stack(self) -> bool:
        """702.61a: a spell with split second is on the stack."""
        return bool(self.stack) and any(item.split_second for item in self.stack)

    def _check_sorcery_timing(self, p: int, cdef: CardDef, face_down: bool = False) -> None:
        if p == self.active and self.step.is_main and not self.stack:
            return  # the common case; the rule and words of a refusal are found only for one
        type_rule = "307.1"
        for card_type, rule in (
            ("creature", "302.1"),
            ("artifact", "301.1"),
            ("enchantment", "303.1"),
            ("planeswalker", "306.1"),
            ("battle", "310.1"),
        ):
            if cdef.is_a(card_type) or face_down:
                type_rule = "302.1" if face_down else rule
                break
        noun = "creature" if face_down else cdef.types[-1]
        kind = f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"
        if not self._is_active(p) or not self.step.is_main:
            raise IllegalAction(
                f"{cdef.name} is {kind} spell: it can be cast only in its caster's main phase "
                f"(it is {self.players[self.active].name}'s {self.step.label})",
                "117.1a",
                type_rule,
            )
        if self.stack:
            raise IllegalAction(
                f"{cdef.name} is {kind} spell: it can be cast only while the stack is empty "
                f"({self.stack[-1].name} is on it)",
                "117.1a",
                type_rule,
            )

    def _check_activate(self, p: int, action: Action) -> ActivatePlan | ManaPlan:
        self._need_priority(p, "117.1b")
        if action.card is None:
            raise IllegalAction("no permanent named: whose ability is activated?", "602.2")
        return self.pick_permanent(
            action.card, p, lambda obj: self._check_activate_on(p, obj, action)
        )

    def _check_activate_on(
        self, p: int, obj: GameObject, action: Action
    ) -> ActivatePlan | ManaPlan:
        abilities = () if obj.face_down else obj.card.abilities
        if not abilities:
            raise IllegalAction(f"{obj.label} has no activated ability", "602.1")
        if action.ability is not None:
            if not 1 <= action.ability <= len(abilities):
                raise IllegalAction(
                    f"{obj.label} has {len(abilities)} activated abilities", "602.1"
                )
            index = action.ability - 1
        elif action.phrase:
            index = self._ability_by_phrase(obj, action.phrase)
        else:
            index = next((i for i, a in enumerate(abilities) if not a.is_mana_ability), 0)
        ability = abilities[index]
        if ability.is_mana_ability:
            return self._check_mana_ability(obj, index, action.targets)
        self._check_split_second("activate abilities other than mana abilities")
        if ability.tap:
            why = self._can_tap_for_cost(obj)
            if why:
                raise IllegalAction(why, "602.2b", self._tap_rule(obj))
        if ability.sorcery_speed:
            self._check_sorcery_speed_ability(p, obj, ability)
        targets = self._choose_targets(ability.effects, action.targets, obj.id, p)
        payment = self._payment_plan(p, ability.mana_cost, exclude=obj if ability.tap else None)
        return ActivatePlan(obj, index, targets, payment)

    def _ability_by_phrase(self, obj: GameObject, phrase: str) -> int:
        """``equip`` or a loyalty cost (``+1``, ``-3``, ``0``) names an ability of ``obj``."""
        for i, ability in enumerate(obj.card.abilities):
            if phrase == "equip" and ability.equip:
                return i
            if ability.loyalty is not None and phrase.lstrip("+") == str(ability.loyalty):
                return i
        raise IllegalAction(f"{obj.label} has no {phrase} ability", "602.1")

    def _check_sorcery_speed_ability(self, p: int, obj: GameObject, ability: Ability) -> None:
        """Loyalty abilities (606.3, 606.6) and equip (702.6a): only as a sorcery; a loyalty
        ability once a turn per permanent, and a negative cost needs enough loyalty counters."""
        rule = "606.3" if ability.loyalty is not None else "702.6a"
        what = "a loyalty ability" if ability.loyalty is not None else "equip"
        where = self.sorcery_timing_problem(p)
        if where:
            raise IllegalAction(
                f"{what} is activated only in its controller's main phase with an empty stack "
                f"({where})",
                rule,
            )
        if ability.loyalty is not None:
            if obj.loyalty_turn == self.turn:
                raise IllegalAction(
                    f"a loyalty ability of {obj.label} was already activated this turn", "606.3"
                )
            if obj.counters.get("loyalty", 0) + ability.loyalty < 0:
                raise IllegalAction(
                    f"{obj.label} has {obj.counters.get('loyalty', 0)} loyalty counters: not "
                    f"enough to pay {ability.loyalty}",
                    "606.6",
                )

    def _apply_activate(self, p: int, plan: ActivatePlan | ManaPlan) -> None:
        """602.2: the ability goes on the stack, then its costs are paid."""
        if isinstance(plan, ManaPlan):
            self._apply_mana(p, plan)
            return
        obj, targets = plan.obj, plan.targets
        ability = obj.card.abilities[plan.index]
        name = f"{obj.card.name} ability"
        item = StackObject(
            self._new_id(), "activated ability", name, p, ability.effects, targets, source=obj
        )
        self.stack.append(item)
        aimed = f" targeting {', '.join(self.target_label(t) for t in targets)}" if targets else ""
        rules = cite("602.2", "117.1b")
        if ability.loyalty is not None:
            obj.loyalty_turn = self.turn
            obj.counters["loyalty"] = obj.counters.get("loyalty", 0) + ability.loyalty
            self.battlefield.watch(obj)
            rules += ["606.3", "606.4"]
        if ability.equip:
            rules.append("702.6a")
        if len(self.stack) > 1:
            rules.append("117.7")
        self._emit(
            "activate",
            f"{self.players[p].name} activates {obj.label}: {ability.text}{aimed}",
            rules,
            p,
        )
        if ability.tap:
            obj.tapped = True
        self._pay(p, ability.mana_cost, plan.payment, name)
        self._after_action(p, "117.3c", adds_to_stack=True)
        self._run_shortcut()


#: Target kinds that are spells on the stack (115.1): any spell, or an instant or sorcery spell.
SPELL_TARGETS = ("spell", "instant or sorcery")


def _instant_or_sorcery(item: StackObject) -> bool:
    """An instant or sorcery spell (Twincast's target)."""
    card = item.card
    return (
        card is not None
        and not item.face_down
        and (card.card.is_a("instant") or card.card.is_a("sorcery"))
    )
