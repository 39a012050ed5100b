"""Mana abilities (605) and paying mana costs (601.2g-h): the engine taps sources as needed."""

from __future__ import annotations

from kb.engine.mana import ManaCost, ManaError, format_mana, parse_mana
from kb.engine.objects import Action, GameObject, IllegalAction, ManaPlan, cite
from kb.engine.state import GameState


class ManaAbilities(GameState):
    """Mana abilities (605) and paying mana costs (601.2g-h): the engine taps sources as needed."""

    def _mana_ability(self, obj: GameObject, mana: dict[str, int] | None = None) -> int | None:
        if obj.face_down:
            return None
        for i, ability in enumerate(obj.card.abilities):
            if not ability.is_mana_ability:
                continue
            if mana is None:
                return i
            produced: dict[str, int] = {}
            for eff in ability.effects:
                for c, n in eff.mana:
                    produced[c] = produced.get(c, 0) + n
            if produced == mana:
                return i
        return None

    def _produces(self, obj: GameObject, index: int) -> dict[str, int]:
        return dict(obj.card.abilities[index].produces)

    def _tap_blocked(self, obj: GameObject) -> bool:
        """Whether the {T} of this permanent can't be paid now (the test of
        :meth:`_can_tap_for_cost`, without building its message)."""
        return obj.tapped or (
            obj.sick and (obj.face_down or obj.card.kind_flags[0]) and not self.has(obj, "haste")
        )

    def _can_tap_for_cost(self, obj: GameObject) -> str | None:
        """Why the {T} of this permanent can't be paid now, or None."""
        if not self._tap_blocked(obj):
            return None
        if obj.tapped:
            return f"{obj.label} is tapped"
        if self.is_creature(obj) and obj.sick and not self.has(obj, "haste"):
            return (
                f"{obj.label} has not been under {self.players[obj.controller].name}'s control "
                "since the start of their most recent turn (summoning sickness)"
            )
        return None

    def _tap_rule(self, obj: GameObject) -> str:
        """The rule a refused {T} cost breaks: 107.5 for a tapped permanent, 302.6 for a
        creature not controlled since its controller's turn began."""
        return "107.5" if obj.tapped else "302.6"

    def _payment_plan(
        self, p: int, cost: ManaCost, exclude: GameObject | None = None
    ) -> list[tuple[GameObject, int]]:
        """Which mana abilities to activate, in battlefield order, for what the pool lacks.
        While :meth:`legal_actions` enumerates (the game can't change), plans are memoised."""
        if self.plan_memo is None:
            return self._plan_payment(p, cost, exclude)
        found = self._plan_memo(p, cost, exclude)
        if found is None:
            raise self._refusal(p, cost)
        return found

    def _affordable(self, p: int, cost: ManaCost) -> bool:
        """While legal actions are listed: whether player ``p`` can pay ``cost`` (the test of
        :meth:`_payment_plan`, without raising)."""
        return self._plan_memo(p, cost, None) is not None

    def _plan_memo(
        self, p: int, cost: ManaCost, exclude: GameObject | None
    ) -> list[tuple[GameObject, int]] | None:
        """The payment plan, or None when the cost can't be paid, memoised while legal actions
        are listed (a refusal is remembered as False, its message written only if raised)."""
        memo = self.plan_memo
        assert memo is not None
        # The cost by its parts: a tuple hashes faster than the frozen dataclass.
        key = (p, cost.generic, cost.coloured, exclude.id if exclude is not None else 0)
        found = memo.get(key)
        if found is None:
            found = self._plan_or_none(p, cost, exclude)
            memo[key] = False if found is None else found
            return found
        return None if found is False else found  # type: ignore[no-any-return]

    def _plan_payment(
        self, p: int, cost: ManaCost, exclude: GameObject | None = None
    ) -> list[tuple[GameObject, int]]:
        plan = self._plan_or_none(p, cost, exclude)
        if plan is None:
            raise self._refusal(p, cost)
        return plan

    def _plan_or_none(
        self, p: int, cost: ManaCost, exclude: GameObject | None
    ) -> list[tuple[GameObject, int]] | None:
        """The payment plan of :meth:`_plan_payment`, or None when the cost can't be paid (no
        exception: listing legal actions asks this of many costs it then leaves out)."""
        # The pool as a plain dict and a running total: the arithmetic of ManaPool.can_pay and
        # ManaPool.add, inline (this runs for every cost while legal actions are listed).
        amounts = self.players[p].pool.amounts
        coloured = cost.coloured
        total = cost.total
        have_all = sum(amounts.values())
        if have_all >= total and all(amounts.get(c, 0) >= n for c, n in coloured):
            return []
        sources, reach, colours = self._mana_sources(p, exclude)
        # What no choice of sources can pay is refused without trying them: too little mana in
        # all, or too little of one colour.
        if reach + have_all < total:
            return None
        for colour, n in coloured:
            if amounts.get(colour, 0) + colours.get(colour, 0) < n:
                return None
        pool = dict(amounts)
        plan: list[tuple[GameObject, int]] = []
        used: set[int] = set()
        # First the colours the pool lacks, each from the first sources that make it ...
        for colour, n in coloured:
            n -= amounts.get(colour, 0)
            for obj, index, produced, amount in sources:
                if n <= 0:
                    break
                if obj.id in used:
                    continue
                if produced.get(colour):
                    used.add(obj.id)
                    plan.append((obj, index))
                    for c, k in produced.items():
                        pool[c] = pool.get(c, 0) + k
                    have_all += amount
                    n -= produced[colour]
        # ... then the first unused sources in battlefield order, until the pool pays the cost.
        remaining = iter(sources)
        while not (have_all >= total and all(pool.get(c, 0) >= n for c, n in coloured)):
            for obj, index, produced, amount in remaining:
                if obj.id not in used:
                    used.add(obj.id)
                    plan.append((obj, index))
                    for c, k in produced.items():
                        pool[c] = pool.get(c, 0) + k
                    have_all += amount
                    break
            else:
                return None
        return plan

    def _mana_sources(
        self, p: int, exclude: GameObject | None
    ) -> tuple[list[tuple[GameObject, int, dict[str, int], int]], int, dict[str, int]]:
        """The {T} mana abilities player ``p`` can activate now, in battlefield order, with the
        mana each makes (the card's dict: read it, never change it) and its amount, and the most
        mana (in all, and of each colour) they can make together (each permanent once).
        Memoised while legal actions are listed (the game can't change meanwhile)."""
        memo = self.plan_memo
        key = ("sources", p, exclude.id if exclude is not None else 0)
        if memo is not None and key in memo:
            return memo[key]  # type: ignore[no-any-return]
        sources = []
        reach = 0
        colours: dict[str, int] = {}
        for obj in self.battlefield.of(p):
            cdef = obj.card
            if not cdef.tap_mana or obj.face_down or obj is exclude:
                continue
            # Every {T} mana ability is a choice: the one that makes the colour needed is used
            # (the most specific, as MTR 4.2 assumes), each permanent once. _tap_blocked, inline
            # (it is face up here):
            if obj.tapped or (obj.sick and cdef.kind_flags[0] and not self.has(obj, "haste")):
                continue
            for index, produced, amount in cdef.tap_sources:
                sources.append((obj, index, produced, amount))
            reach += cdef.tap_most
            for colour, n in cdef.tap_best:
                colours[colour] = colours.get(colour, 0) + n
        if memo is not None:
            memo[key] = (sources, reach, colours)
        return sources, reach, colours

    def _refusal(self, p: int, cost: ManaCost) -> CannotPay:
        """601.2h: the refusal of a cost player ``p`` can't pay now."""
        return CannotPay(self.players[p].name, cost, dict(self.players[p].pool.amounts))

    def _pay(self, p: int, cost: ManaCost, plan: list[tuple[GameObject, int]], what: str) -> None:
        for obj, index in plan:
            self._activate_mana(p, obj, index, during=what)
        pool = self.players[p].pool
        paid = pool.pay(cost)
        assert paid, "a checked payment plan must pay"
        if cost.total:
            left = f"; {pool} left in the pool" if not pool.is_empty() else ""
            self._emit(
                "pay",
                f"{self.players[p].name} pays {cost} for {what}{left}",
                cite("601.2h", "106.4a") if left else cite("601.2h"),
                p,
            )

    def _activate_mana(
        self, p: int, obj: GameObject, index: int, during: str | None = None
    ) -> None:
        ability = obj.card.abilities[index]
        if ability.tap:
            obj.tapped = True
        mana = self._produces(obj, index)
        self.players[p].pool.add(mana)
        where = f" to pay for {during}" if during else ""
        self._emit(
            "mana",
            f"{self.players[p].name} taps {obj.label} for {format_mana(mana)}{where} "
            "(a mana ability: it doesn't use the stack)",
            cite("605.3a", "605.3b", "117.1d") if during else cite("605.3a", "605.3b"),
            p,
        )

    def _check_mana(self, p: int, action: Action) -> ManaPlan:
        self._need_priority(p, "605.3a")
        if action.card is None:
            raise IllegalAction("no permanent named: whose mana ability is activated?", "605.3a")
        if isinstance(action.card, int):  # one permanent (or none): what pick_permanent does
            obj = self.battlefield.get(action.card)
            if obj is None or obj.controller != p:
                obj = self.permanents_named(action.card, p)[0]  # raises, citing the rule
            if action.ability is None or obj.face_down:
                return self._check_mana_on(obj, action)
            # The ability by its number (how legal_actions lists it): _check_mana_on, inline.
            index = action.ability - 1
            if not 0 <= index < len(obj.card.abilities):
                raise IllegalAction(f"{obj.label} has no ability {action.ability}", "602.1")
            return self._check_mana_ability(obj, index, action.targets)
        return self.pick_permanent(action.card, p, lambda obj: self._check_mana_on(obj, action))

    def _check_mana_on(self, obj: GameObject, action: Action) -> ManaPlan:
        if action.ability is not None:
            index = action.ability - 1
            if obj.face_down or not 0 <= index < len(obj.card.abilities):
                raise IllegalAction(f"{obj.label} has no ability {action.ability}", "602.1")
        else:
            try:
                wanted = parse_mana(action.mana) if action.mana else None
            except ManaError as err:
                raise IllegalAction(str(err), "106.1") from None
            found = self._mana_ability(obj, wanted)
            if found is None:
                raise IllegalAction(
                    f"{obj.label} has no mana ability that adds {action.mana or 'mana'}", "605.1a"
                )
            index = found
        return self._check_mana_ability(obj, index, action.targets)

    def _check_mana_ability(
        self, obj: GameObject, index: int, targets: tuple[str | tuple[str, int], ...]
    ) -> ManaPlan:
        """605.1a, 605.3a: a mana ability has no target, and its {T} cost must be payable."""
        ability = obj.card.abilities[index]
        if not ability.is_mana_ability:
            raise IllegalAction(
                f"{obj.label}'s ability {index + 1} is not a mana ability: it is activated and "
                "uses the stack",
                "605.1a",
                "602.2",
            )
        if targets:
            raise IllegalAction(f"{obj.label}'s mana ability has no target", "605.1a")
        if ability.tap and self._tap_blocked(obj):
            raise IllegalAction(self._can_tap_for_cost(obj) or "", "605.3a", self._tap_rule(obj))
        return ManaPlan(obj, index)

    def _apply_mana(self, p: int, plan: ManaPlan) -> None:
        """605.3b: a mana ability resolves at once; its controller keeps priority (405.6c)."""
        self._activate_mana(p, plan.obj, plan.index)
        self.passes = 0
        self._give_priority(p, cite("405.6c"))


class CannotPay(IllegalAction):
    """601.2h: a cost the player's mana pool and untapped mana sources can't pay. Its message is
    written only when read: listing legal actions raises it often and never reads it."""

    def __init__(self, player: str, cost: ManaCost, pool: dict[str, int]) -> None:
        Exception.__init__(self)
        self.rules = ["601.2h", "117.1d"]
        self._said = (player, cost, pool)

    @property
    def message(self) -> str:  # type: ignore[override]
        """The message of :class:`IllegalAction`, written from the state captured when raised."""
        player, cost, pool = self._said
        return (
            f"{player} can't pay {cost}: the mana pool has {format_mana(pool)} and the untapped "
            "mana sources are not enough"
        )

    def __str__(self) -> str:
        return self.message
