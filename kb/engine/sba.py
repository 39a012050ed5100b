"""State-based actions (704): checked whenever a player would receive priority, performed at once.

Each check below names its rule of 704.5; :meth:`StateBasedActions._state_based_actions` finds
every one that applies and performs them all as a single event (704.3), then the check repeats.
"""

from __future__ import annotations

from operator import attrgetter

from kb.engine.cards import unquote
from kb.engine.objects import Action, GameObject, IllegalAction, cite
from kb.engine.state import GameState
from kb.engine.teams import TEAM_POISON_TO_LOSE

POISON_TO_LOSE = 10  # 704.5c
_MARKED = attrgetter("deathtouch_damage")


class StateBasedActions(GameState):
    """State-based actions (704): checked whenever a player would receive priority, performed at
    once."""

    def _state_based_actions(self) -> bool:
        """Check 704.5a-q once; perform all that apply as a single event (704.3)."""
        losers = self._sba_losers()
        dying, to_graveyard, unattach, annihilate = self._sba_permanents()
        ceasing = self._sba_tokens() if self.tokens else []
        legends = self._sba_legend_rule() if self.legends else []
        for pl in self.players:
            if pl.drew_from_empty:
                pl.drew_from_empty = False
        # Only where set (a filter in C): cheaper than writing every permanent. Damage is marked
        # on watched permanents only (see Battlefield.watch).
        for obj in filter(_MARKED, self.battlefield.watched()):
            obj.deathtouch_damage = False
        if not (losers or dying or to_graveyard or unattach or annihilate or ceasing or legends):
            return False  # the common case: nothing to do
        if self.shields:  # said as what would happen: a regeneration shield replaces it
            dying = [
                (o, text.replace(" and is destroyed", " and would be destroyed"), r)
                if r in ("704.5g", "704.5h") and self._regeneration_shield(o)
                else (o, text, r)
                for o, text, r in dying
            ]
        found = losers + dying + to_graveyard + unattach + annihilate + ceasing + legends
        parts = [text for _, text, _ in found]
        rules = ["704.3", *sorted({r for *_, r in found})]
        self._emit("state-based actions", "state-based actions: " + "; ".join(parts), rules)
        for obj, _, _ in annihilate:
            n = min(obj.counters.get("+1/+1", 0), obj.counters.get("-1/-1", 0))
            obj.counters["+1/+1"] -= n
            obj.counters["-1/-1"] -= n
        for obj, _, _ in unattach:
            obj.attached_to = None
        if self.shields:  # 701.19a: regeneration replaces destruction (704.5g-h), not 704.5f
            saved = {o.id for o, _, r in dying if r in ("704.5g", "704.5h") and self._regenerate(o)}
            dying = [d for d in dying if d[0].id not in saved]
        for obj, _, _ in ceasing:
            for pl in self.players:
                for zone in (pl.graveyard, pl.hand, pl.exile, pl.library):
                    if obj in zone:
                        zone.remove(obj)
        leaving = [o for o, _, _ in dying + to_graveyard + legends]
        if leaving:
            self._leave_battlefield(list(dict.fromkeys(leaving)), dies=True)
        if losers:
            self._leave([p for p, _, _ in losers], "lost")
        return True

    def _sba_losers(self) -> list[tuple[int, str, str]]:
        """704.5a (0 or less life), 704.5b (drew from an empty library), 704.5c (poison)."""
        losers: list[tuple[int, str, str]] = []
        poisoned = POISON_TO_LOSE if self.teams is None else TEAM_POISON_TO_LOSE
        for pl in self.players:
            if not pl.in_game:
                continue
            if pl.life <= 0:
                losers.append(
                    (
                        pl.index,
                        f"{pl.name} has {pl.life} life and loses the game",
                        "704.5a" if self.teams is None else "810.8c",
                    )
                )
            elif pl.drew_from_empty:
                losers.append(
                    (pl.index, f"{pl.name} drew from an empty library and loses the game", "704.5b")
                )
            elif pl.poison >= poisoned:
                losers.append(
                    (
                        pl.index,
                        f"{pl.name} has {pl.poison} poison counters and loses the game",
                        "704.5c" if self.teams is None else "810.8d",
                    )
                )
        return losers

    def _sba_permanents(
        self,
    ) -> tuple[list[tuple[GameObject, str, str]], ...]:
        """704.5f-i (creatures and planeswalkers), 704.5m-n (attachments), 704.5q (counters).

        A check added here for another kind of permanent must update ``CardDef.sba_class`` (which
        says which face-up permanents without counters no check applies to); counters put on a
        permanent must be followed by ``battlefield.watch`` (see :class:`Battlefield`)."""
        dying: list[tuple[GameObject, str, str]] = []
        graveyard: list[tuple[GameObject, str, str]] = []
        unattach: list[tuple[GameObject, str, str]] = []
        annihilate: list[tuple[GameObject, str, str]] = []
        quiet = not (self.anthems or self.attachments or self.layered)
        # Only the permanents a check may apply to (a land without counters is never looked at).
        for obj in self.battlefield.watched():
            if not (obj.counters or obj.face_down):
                # The common cases first: a permanent no check below applies to (a land, say),
                # and a creature nothing can have made lethal (the fast path of 704.5f-h).
                sba_class = obj.card.sba_class
                if not sba_class:
                    continue
                if (
                    sba_class == 1
                    and quiet
                    and not (obj.damage or obj.deathtouch_damage or obj.modifiers)
                ):
                    continue
            creature, walker, aura, equipment = obj.card.kind_flags
            if obj.face_down:
                creature, walker, aura, equipment = True, False, False, False
            if obj.counters and obj.counters.get("+1/+1") and obj.counters.get("-1/-1"):
                annihilate.append(
                    (
                        obj,
                        f"{obj.label} has +1/+1 and -1/-1 counters: as many of each are removed",
                        "704.5q",
                    )
                )
            if walker and obj.counters.get("loyalty", 0) <= 0:
                graveyard.append(
                    (
                        obj,
                        f"{obj.label} has 0 loyalty and is put into its owner's graveyard",
                        "704.5i",
                    )
                )
            if aura:
                host = self._object(obj.attached_to) if obj.attached_to is not None else None
                if host is not None and (c := self._protected_from(host, self._colors(obj))):  # type: ignore[attr-defined]
                    graveyard.append(
                        (
                            obj,
                            f"{obj.label} is attached to {host.label}, which has protection from "
                            f"{c}, and is put into its owner's graveyard",
                            "702.16c",
                        )
                    )
                elif host is None or not self.is_creature(host):
                    graveyard.append(
                        (
                            obj,
                            f"{obj.label} is attached to nothing it can enchant and is put into "
                            "its owner's graveyard",
                            "704.5m",
                        )
                    )
            if equipment and obj.attached_to is not None:
                host = self._object(obj.attached_to)
                if host is not None and (c := self._protected_from(host, self._colors(obj))):  # type: ignore[attr-defined]
                    unattach.append(
                        (
                            obj,
                            f"{obj.label} is attached to {host.label}, which has protection from "
                            f"{c}, and becomes unattached",
                            "702.16d",
                        )
                    )
                elif host is None or not self.is_creature(host):
                    unattach.append(
                        (
                            obj,
                            f"{obj.label} is attached to an illegal permanent and becomes "
                            "unattached",
                            "704.5n",
                        )
                    )
            if not creature:
                continue
            if not (
                obj.damage
                or obj.deathtouch_damage
                or obj.modifiers
                or obj.counters
                or self.anthems
                or self.attachments
                or self.layered
                or (2 if obj.face_down else obj.card.toughness or 0) <= 0
            ):
                continue  # nothing can have made it lethal or 0: a fast path for 704.5f-h
            t = self.toughness(obj)
            if t <= 0:
                dying.append(
                    (
                        obj,
                        f"{obj.label} has toughness {t} and is put into its owner's graveyard",
                        "704.5f",
                    )
                )
            elif (obj.damage >= t or obj.deathtouch_damage) and self._indestructible(obj):
                continue  # 702.12b: it ignores 704.5g, and 704.5h can't destroy it
            elif obj.damage >= t:
                dying.append((obj, f"{obj.label} has lethal damage and is destroyed", "704.5g"))
            elif obj.deathtouch_damage:
                dying.append(
                    (
                        obj,
                        f"{obj.label} was dealt damage by a source with deathtouch and is destroyed",
                        "704.5h",
                    )
                )
        return dying, graveyard, unattach, annihilate

    def _sba_tokens(self) -> list[tuple[GameObject, str, str]]:
        """704.5d: a token in a zone other than the battlefield ceases to exist; 704.5e: so does
        a copy of a spell in a zone other than the stack."""
        out: list[tuple[GameObject, str, str]] = []
        if not self.tokens:
            return out
        for pl in self.players:
            for zone, where in (
                (pl.graveyard, "graveyard"),
                (pl.exile, "exile"),
                (pl.hand, "hand"),
            ):
                for obj in zone:
                    if obj.token:
                        out.append(
                            (
                                obj,
                                f"the token {obj.label} is in {where} and ceases to exist",
                                "704.5d",
                            )
                        )
                    elif obj.copy:
                        out.append(
                            (obj, f"{obj.label} is in {where} and ceases to exist", "704.5e")
                        )
        return out

    def _sba_legend_rule(self) -> list[tuple[GameObject, str, str]]:
        if not self._sba_legend_rule_pending():
            return []
        return self._legend_rule()

    def _legend_rule(self) -> list[tuple[GameObject, str, str]]:
        """704.5j: a player with two or more legendary permanents of one name keeps one (their
        announced choice, else the newest) and puts the rest into their owners' graveyards."""
        out: list[tuple[GameObject, str, str]] = []
        groups: dict[tuple[int, str], list[GameObject]] = {}
        for obj in self.battlefield:
            if obj.card.legendary and not obj.face_down:
                groups.setdefault((obj.controller, obj.name.lower()), []).append(obj)
        for (p, name), objs in groups.items():
            if len(objs) < 2:
                continue
            announced = self.legend_choices.pop((p, name), "")
            choice = announced or "new"
            keep = objs[0] if choice == "old" else objs[-1]
            how = "chooses to keep" if announced else "keeps (no choice announced)"
            for obj in objs:
                if obj is not keep:
                    out.append(
                        (
                            obj,
                            f"{self.players[p].name} controls two legendary permanents named "
                            f"{obj.name}, {how} the {choice}er one and puts the other into its "
                            "owner's graveyard",
                            "704.5j",
                        )
                    )
        return out

    def _state_based_actions_pending(self) -> bool:
        """Whether any state-based action would be performed (514.3a), without performing it."""
        for pl in self.players:
            poisoned = POISON_TO_LOSE if self.teams is None else TEAM_POISON_TO_LOSE
            if pl.in_game and (pl.life <= 0 or pl.drew_from_empty or pl.poison >= poisoned):
                return True
        if any(self._sba_permanents()) or self._sba_tokens():
            return True
        return bool(self._sba_legend_rule_pending())

    def _sba_legend_rule_pending(self) -> bool:
        if not self.legends:
            return False
        seen: set[tuple[int, str]] = set()
        for obj in self.battlefield:
            if obj.card.legendary and not obj.face_down:
                key = (obj.controller, obj.name.lower())
                if key in seen:
                    return True
                seen.add(key)
        return False

    def _check_keep(self, p: int, action: Action) -> tuple[str, str]:
        """704.5j: the name is a legendary card's (the rule applies to nothing else)."""
        self._check_in_game(p, action)
        if action.phrase not in ("old", "new"):
            raise IllegalAction("keeps the old <name> | keeps the new <name>", "704.5j")
        name = unquote(str(action.card or ""))
        card = self.pool.get(name)
        if card is None:
            raise IllegalAction(
                f"there is no card named {name} (not in cards.toml nor defined with 'card')",
                "704.5j",
            )
        if not card.legendary:
            raise IllegalAction(
                f"{card.name} is not legendary: the legend rule never applies to it", "704.5j"
            )
        return action.phrase, card.name

    def _apply_keep(self, p: int, plan: tuple[str, str]) -> None:
        """704.5j: the choice the player will make when the legend rule next applies to their
        permanents of that name."""
        choice, name = plan
        self.legend_choices[(p, name.lower())] = choice
        self._emit(
            "choice",
            f"{self.players[p].name} will keep the {choice}er of their legendary permanents named "
            f"{name}",
            cite("704.5j"),
            p,
        )
