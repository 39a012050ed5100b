"""Assigning combat damage (510.1): the attacking player divides a blocked creature's damage.

Under the current rules (the damage assignment order was removed from 509 and 510 in 2024), a
creature blocked by two or more creatures assigns its combat damage "divided as its controller
chooses among them" (510.1c), in any amounts that add up to its power (510.1a). With trample
(702.19b) the rest may go to the player or planeswalker it attacks, but only once every blocker
has been assigned lethal damage (damage already marked counts; any amount from a deathtouch
source is lethal, 702.2c).

As the combat damage step begins, when some attacking creature has such a choice, the active
player announces the assignment of every such creature (``assign``); the whole announcement is
checked at once and refused, changing nothing, when it breaks 510.1 (510.1e). Creatures without a
choice assign their damage by themselves. A blocker blocks one attacker here (509.1a), so the
defending player never has a choice to announce (510.1d).
"""

from __future__ import annotations

from kb.engine.objects import Action, GameObject, IllegalAction, ScenarioError, cite
from kb.engine.state import GameState

Recipient = tuple[str, int]
Assignment = dict[int, list[tuple[Recipient, int]]]


class DamageAssignment(GameState):
    """510.1c-e and 702.19b: the active player divides blocked creatures' combat damage."""

    # ---- who has a choice --------------------------------------------------------------------
    def _assigns_now(self, obj: GameObject, first_strike: bool) -> bool:
        """Whether an attacking creature assigns combat damage in this damage step (510.4)."""
        strikes_first = self.has(obj, "first strike") or self.has(obj, "double strike")
        if first_strike:
            return strikes_first
        return not obj.struck_first or self.has(obj, "double strike")

    def _attacked_recipient(self, obj: GameObject) -> Recipient | None:
        """The player or planeswalker an attacking creature attacks (None if it is gone)."""
        assert obj.attacking is not None
        if obj.attacking_planeswalker is not None:
            walker = self._object(obj.attacking_planeswalker)
            return ("object", walker.id) if walker is not None else None
        return ("player", obj.attacking)

    def _blockers_of(self, obj: GameObject) -> list[GameObject]:
        return [b for b in self.battlefield if b.blocking == obj.id]

    def _lethal(self, attacker: GameObject, blocker: GameObject) -> int:
        """702.19b, 702.2c: lethal damage for a blocker, counting damage already marked."""
        if self.has(attacker, "deathtouch"):
            return 1
        return max(0, self.toughness(blocker) - blocker.damage)

    def _has_choice(self, obj: GameObject) -> bool:
        """A blocked attacker whose controller chooses how its damage is divided: two or more
        blockers (510.1c), or trample with more power than its blockers' lethal damage."""
        if obj.attacking is None or not obj.blocked or self.power(obj) <= 0:
            return False
        blockers = self._blockers_of(obj)
        if len(blockers) >= 2:
            return True
        if len(blockers) == 1 and self.has(obj, "trample"):
            attacked = self._attacked_recipient(obj)
            return attacked is not None and self.power(obj) > self._lethal(obj, blockers[0])
        return False

    def _choosers(self, first_strike: bool) -> list[GameObject]:
        """The attacking creatures whose damage the active player must divide in this step."""
        return [
            o
            for o in self.battlefield
            if o.attacking is not None
            and o.controller == self.active
            and self._assigns_now(o, first_strike)
            and self._has_choice(o)
        ]

    def _await_damage_assignment(self, first_strike: bool) -> bool:
        """510.1: as the step begins, wait for the active player's announcement if it has a
        choice to make; return whether the game now waits."""
        self.damage_assignment = {}
        if not self.players[self.active].in_game or not self._choosers(first_strike):
            return False
        self.awaiting = ("damage", self.active, 0)
        self._emit(
            "turn-based action",
            f"{self.players[self.active].name} announces how each attacking creature blocked by "
            "several creatures (or with trample) assigns its combat damage",
            cite("510.1", "510.1c"),
            self.active,
        )
        self._run_shortcut()
        return True

    # ---- the announcement ---------------------------------------------------------------------
    def _check_assign(self, p: int, action: Action) -> Assignment:
        """510.1a-e, 702.19b: each chosen creature's damage, in amounts adding up to its power,
        among its blockers (and, with trample, what it attacks once every blocker has lethal)."""
        if self.awaiting is None or self.awaiting[0] != "damage":
            raise IllegalAction(
                "combat damage is assigned as a combat damage step begins, when an attacking "
                f"creature has a choice (it is the {self.step.label})",
                "510.1",
            )
        if p != self.awaiting[1]:
            raise IllegalAction(
                "the active player announces how attacking creatures assign combat damage", "510.1"
            )
        first_strike = self.step.value == "first-strike damage"
        plan: Assignment = {}
        for attacker_ref, parts in action.assignment:
            obj = self.pick_permanent(
                attacker_ref, p, lambda o: self._can_assign(o, first_strike, plan)
            )
            plan[obj.id] = self._check_one_assignment(obj, parts)
        missing = [o.label for o in self._choosers(first_strike) if o.id not in plan]
        if missing:
            raise IllegalAction(
                f"announce how {', '.join(missing)} assigns its combat damage too (each attacking "
                "creature's assignment is announced before any damage is dealt)",
                "510.1",
                "510.1e",
            )
        return plan

    def _can_assign(self, obj: GameObject, first_strike: bool, plan: Assignment) -> GameObject:
        if obj.id in plan:
            raise IllegalAction(f"{obj.label}'s damage is assigned twice", "510.1e")
        if obj.attacking is None:
            raise IllegalAction(f"{obj.label} is not an attacking creature", "510.1")
        if not self._assigns_now(obj, first_strike):
            raise IllegalAction(
                f"{obj.label} assigns no combat damage in this combat damage step", "510.4"
            )
        if not obj.blocked:
            raise IllegalAction(
                f"{obj.label} is unblocked: it assigns all its damage to what it attacks",
                "510.1b",
            )
        return obj

    def _check_one_assignment(
        self, obj: GameObject, parts: tuple[tuple[str | int | tuple[str, int], int], ...]
    ) -> list[tuple[Recipient, int]]:
        power = max(0, self.power(obj))
        blockers = self._blockers_of(obj)
        trample = self.has(obj, "trample")
        attacked = self._attacked_recipient(obj)
        out: list[tuple[Recipient, int]] = []
        used: set[int] = set()
        for ref, amount in parts:
            if amount < 0:
                raise IllegalAction("an amount of damage is 0 or more", "510.1a")
            recipient = self._assignment_recipient(obj, ref, blockers, used, trample, attacked)
            out.append((recipient, amount))
        total = sum(n for _, n in out)
        if total != power:
            raise IllegalAction(
                f"{obj.label} assigns combat damage equal to its power, {power}, not {total}",
                "510.1a",
                "510.1e",
            )
        to_attacked = sum(n for r, n in out if r[0] == "player" or r not in _ids(blockers))
        if to_attacked:
            given = {r[1]: 0 for r in _ids(blockers)}
            for (kind, ident), n in out:
                if kind == "object" and ident in given:
                    given[ident] += n
            short = [b.label for b in blockers if given[b.id] < self._lethal(obj, b)]
            if short:
                raise IllegalAction(
                    f"{obj.label} can assign damage to {self.target_label(attacked or out[-1][0])} "
                    f"only once each blocking creature is assigned lethal damage ({', '.join(short)} "
                    "is not)",
                    "702.19b",
                    "510.1e",
                )
        return out

    def _assignment_recipient(
        self,
        obj: GameObject,
        ref: str | int | tuple[str, int],
        blockers: list[GameObject],
        used: set[int],
        trample: bool,
        attacked: Recipient | None,
    ) -> Recipient:
        """A blocker of ``obj`` (the first of that name not yet named), or, with trample, the
        player or planeswalker it attacks."""
        if isinstance(ref, tuple):
            if ref[0] == "object" and ref[1] in (b.id for b in blockers) and ref[1] not in used:
                used.add(ref[1])
                return ref
            if ref == attacked and trample:
                return ref
        else:
            low = ref.strip().lower()
            for b in blockers:
                if b.name.lower() == low and b.id not in used:
                    used.add(b.id)
                    return ("object", b.id)
            if attacked is not None and self.target_label(attacked).lower() == low:
                if trample:
                    return attacked
                raise IllegalAction(
                    f"{obj.label} is blocked and has no trample: its damage goes to the creatures "
                    f"blocking it, not to {self.target_label(attacked)}",
                    "510.1c",
                    "702.19b",
                )
            try:
                self.player(ref)
            except ScenarioError:
                pass
            else:
                raise IllegalAction(f"{obj.label} isn't attacking {ref}", "510.1c", "702.19b")
        raise IllegalAction(
            f"{ref} is not a creature blocking {obj.label} (or is named twice)", "510.1c"
        )

    def _apply_assign(self, p: int, plan: Assignment) -> None:
        self.awaiting = None
        self.damage_assignment = plan
        rules = cite("510.1", "510.1c")
        texts = []
        for oid, parts in plan.items():
            obj = self._object(oid)
            assert obj is not None
            if any(
                r[0] == "player" or r not in _ids(self._blockers_of(obj)) for r, n in parts if n
            ):
                rules.append("702.19b")
            if self.has(obj, "deathtouch"):
                rules.append("702.2c")
            shown = ", ".join(f"{n} to {self.target_label(r)}" for r, n in parts)
            texts.append(f"{obj.label}: {shown}")
        self._emit(
            "declare",
            f"{self.players[p].name} assigns combat damage: {'; '.join(texts)}",
            list(dict.fromkeys(rules)),
            p,
        )
        first_strike = self.step.value == "first-strike damage"
        self._combat_damage(first_strike=first_strike)
        self.damage_assignment = {}
        self._give_priority(self.active, cite("510.3", "117.3a"))
        self._run_shortcut()

    def _assigned_damage(self, obj: GameObject) -> list[tuple[Recipient, int]] | None:
        """The announced division of an attacker's damage in this step, if any."""
        if not self.damage_assignment:
            return None
        return self.damage_assignment.get(obj.id)

    # ---- what legal_actions lists and advance_to uses ---------------------------------------
    def _assignment_candidates(self) -> list[Action]:
        """A few legal announcements: each blocked creature's default (lethal damage to each
        blocker in turn, the rest to the last one, or with trample to what it attacks), and
        for each creature, all of its damage to one blocker."""
        name = self.players[self.active].name
        first_strike = self.step.value == "first-strike damage"
        choosers = self._choosers(first_strike)
        defaults = {o.id: self._default_division(o) for o in choosers}
        out = [Action("assign", name, assignment=_flatten(defaults))]
        for o in choosers:
            power = max(0, self.power(o))
            for b in self._blockers_of(o):
                variant = dict(defaults)
                variant[o.id] = [(("object", b.id), power)]
                action = Action("assign", name, assignment=_flatten(variant))
                if action not in out:
                    out.append(action)
        return out

    def _default_division(self, obj: GameObject) -> list[tuple[Recipient, int]]:
        power = max(0, self.power(obj))
        blockers = self._blockers_of(obj)
        trample = self.has(obj, "trample")
        attacked = self._attacked_recipient(obj)
        out: list[tuple[Recipient, int]] = []
        left = power
        for i, b in enumerate(blockers):
            last = i == len(blockers) - 1 and not (trample and attacked is not None)
            amount = left if last else min(left, self._lethal(obj, b))
            out.append((("object", b.id), amount))
            left -= amount
        if left and attacked is not None:
            out.append((attacked, left))
        return out


def _ids(blockers: list[GameObject]) -> list[Recipient]:
    return [("object", b.id) for b in blockers]


def _flatten(plan: Assignment) -> tuple[tuple[int, tuple[tuple[Recipient, int], ...]], ...]:
    return tuple((oid, tuple(parts)) for oid, parts in plan.items())
