"""Casting spells (601) and activating abilities (602), and choosing their targets (115)."""

from __future__ import annotations

from kb.engine.cards import CardDef, Effect
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

    def _resolve_target(self, ref: str | tuple[str, int], kind: str) -> tuple[str, int]:
        if isinstance(ref, tuple):
            return ref
        who, name = self._split_owner(ref)
        if who is None and kind in ("any", "player"):
            for pl in self.players:
                if pl.name.lower() == name.lower():
                    return ("player", pl.index)
        if kind == "spell":
            for item in reversed(self.stack):
                if (
                    item.kind == "spell"
                    and item.name.lower() == name.lower()
                    and who in (None, item.controller)
                ):
                    return ("object", item.id)
            raise IllegalAction(f"there is no spell {name} on the stack", "115.1", "601.2c")
        return self.pick_permanent(name, who, lambda obj: self._legal_object_target(obj, kind))

    def _legal_object_target(self, obj: GameObject, kind: str) -> tuple[str, int]:
        """A permanent as a target: the first of its name that is legal for ``kind`` (115.1)."""
        target = ("object", obj.id)
        if not self._target_legal(target, kind):
            raise IllegalAction(f"{obj.label} is not {TARGET_WORDS[kind]}", "115.1", "601.2c")
        return target

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

    def _target_legal(self, target: tuple[str, int], kind: str, source: int | None = None) -> bool:
        tkind, ident = target
        if tkind == "player":
            return (
                kind in ("any", "player")
                and 0 <= ident < len(self.players)
                and self.players[ident].in_game
            )
        if kind == "spell":
            item = self._stack_item(ident)
            return item is not None and item.kind == "spell" and item.id != source
        obj = self._object(ident)
        return obj is not None and kind in ("any", "creature") and self.is_creature(obj)

    def _choose_targets(
        self,
        effects: tuple[Effect, ...],
        refs: tuple[str | tuple[str, int], ...],
        source: int | None = None,
    ) -> list[tuple[str, int]]:
        kinds = [e.target for e in effects if e.target]
        if len(refs) != len(kinds):
            need = ", ".join(TARGET_WORDS[k] for k in kinds) or "no target"
            raise IllegalAction(f"it needs {need}; {len(refs)} given", "601.2c")
        chosen = []
        for ref, kind in zip(refs, kinds, strict=True):
            assert kind is not None
            target = self._resolve_target(ref, kind)
            if not self._target_legal(target, kind, source):
                raise IllegalAction(
                    f"{self.target_label(target)} is not {TARGET_WORDS[kind]}", "115.1", "601.2c"
                )
            chosen.append(target)
        return chosen

    def _check_cast(self, p: int, action: Action) -> CastPlan:
        self._need_priority(p, "117.1a")
        if action.card is None:
            raise IllegalAction("no card named: a spell is cast from a hand", "601.2a")
        card = self._find_in_hand(p, action.card)
        cdef = card.card
        if cdef.is_a("land"):
            raise IllegalAction(f"{cdef.name} is a land: it is played, not cast", "305.1", "305.9")
        if cdef.cost is None and not action.face_down:
            raise IllegalAction(f"{cdef.name} is an unknown card", "601.2")
        self._check_split_second("cast a spell")
        if action.face_down:
            if cdef.morph is None:
                raise IllegalAction(
                    f"{cdef.name} has no morph ability: it can't be cast face down", "702.37d"
                )
            effects: tuple[Effect, ...] = ()
            cost = MORPH_COST
            instant = False
        else:
            effects = cdef.effects
            cost = cdef.cost or ManaCost()
            instant = cdef.is_a("instant") or "flash" in cdef.keywords
        if not instant:
            self._check_sorcery_timing(p, cdef, face_down=action.face_down)
        targets = self._choose_targets(effects, action.targets)
        payment = self._payment_plan(p, cost)
        return CastPlan(card, effects, cost, targets, payment, action.face_down)

    def _apply_cast(self, p: int, plan: CastPlan) -> None:
        """601.2a–i: the card moves to the stack, its targets are announced, its cost is paid."""
        card, targets = plan.card, plan.targets
        cdef = card.card
        self.players[p].hand.remove(card)
        item = StackObject(
            self._new_id(), "spell", cdef.name, p, plan.effects, targets, card, plan.face_down
        )
        self.stack.append(item)
        label = "a face-down creature spell" if plan.face_down else cdef.name
        aimed = f" targeting {', '.join(self.target_label(t) for t in targets)}" if targets else ""
        response = " in response to " + self.stack[-2].name if len(self.stack) > 1 else ""
        rules = cite("601.2", "601.2c") if targets else cite("601.2")
        if response:
            rules.append("117.7")
        if plan.face_down:
            rules.append("702.37c")
        elif cdef.is_a("instant"):
            rules.append("304.1")
        elif "flash" in cdef.keywords:
            rules.append("702.8a")
        self._emit("cast", f"{self.players[p].name} casts {label}{aimed}{response}", rules, p)
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

    def _check_sorcery_timing(self, p: int, cdef: CardDef, face_down: bool = False) -> None:
        type_rule = "307.1"
        for card_type, rule in (
            ("creature", "302.1"),
            ("artifact", "301.1"),
            ("enchantment", "303.1"),
        ):
            if cdef.is_a(card_type) or face_down:
                type_rule = "302.1" if face_down else rule
                break
        kind = "a creature" if face_down else f"a {cdef.types[-1]}"
        if p != self.active or not self.step.is_main:
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
        else:
            index = next((i for i, a in enumerate(abilities) if not a.is_mana_ability), 0)
        ability = abilities[index]
        if ability.is_mana_ability:
            return self._check_mana_ability(obj, index, action.targets)
        self._check_split_second("activate abilities other than mana abilities")
        if ability.tap:
            why = self._can_tap_for_cost(obj)
            if why:
                raise IllegalAction(why, "602.2b", "302.6")
        targets = self._choose_targets(ability.effects, action.targets)
        payment = self._payment_plan(p, ability.mana_cost, exclude=obj if ability.tap else None)
        return ActivatePlan(obj, index, targets, payment)

    def _apply_activate(self, p: int, plan: ActivatePlan | ManaPlan) -> None:
        """602.2: the ability goes on the stack, then its costs are paid."""
        if isinstance(plan, ManaPlan):
            self._apply_mana(p, plan)
            return
        obj, targets = plan.obj, plan.targets
        ability = obj.card.abilities[plan.index]
        name = f"{obj.card.name} ability"
        item = StackObject(self._new_id(), "activated ability", name, p, ability.effects, targets)
        self.stack.append(item)
        aimed = f" targeting {', '.join(self.target_label(t) for t in targets)}" if targets else ""
        rules = cite("602.2", "117.1b")
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
