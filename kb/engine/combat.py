"""Combat (506-511): declaring attackers (508) and blockers (509), and combat damage (510).

Keywords that change combat live here too: vigilance and defender (attacking), flying, reach
and menace (blocking), first strike, double strike, trample and deathtouch (damage).
"""

from __future__ import annotations

from kb.engine.objects import Action, GameObject, IllegalAction, ScenarioError, cite
from kb.engine.state import GameState

Attack = tuple[GameObject, int, GameObject | None]  # attacker, defending player, planeswalker


class Combat(GameState):
    """Combat (506-511): declaring attackers (508) and blockers (509), and combat damage (510)."""

    # ---- 508: declare attackers -----------------------------------------------------------
    def _check_attack(self, p: int, action: Action) -> list[Attack]:
        """508.1a-b: untapped creatures that have been controlled since the turn began (or have
        haste), each attacking an opponent or a planeswalker an opponent controls."""
        if self.awaiting is None or self.awaiting[0] != "attackers":
            raise IllegalAction(
                "attackers are declared as the declare attackers step begins "
                f"(it is the {self.step.label})",
                "508.1",
                "703.4i",
            )
        if p != self.awaiting[1]:
            raise IllegalAction("only the active player declares attackers", "508.1")
        chosen: list[Attack] = []
        seen: set[int] = set()
        team = self.teams is not None  # 805.10b: the active team declares attackers together
        for ref, target in action.attackers:
            obj = self.pick_permanent(
                ref, None if team else p, lambda o: self._can_attack(p, o, seen)
            )
            seen.add(obj.id)
            chosen.append((obj, *self._attack_target(obj.controller if team else p, target)))
        return chosen

    def _attack_target(self, p: int, target: str | int | None) -> tuple[int, GameObject | None]:
        """508.1b: the player or planeswalker attacked; by default the next opponent (a player,
        never a planeswalker: MTR 4.2)."""
        if target is None:
            if self.teams is not None:
                return self._head_across(p), None  # MTR 4.2: the head sitting across
            return (self.defender if self.defender is not None else self.opponents(p)[0]), None
        try:
            if isinstance(target, int):
                raise ScenarioError("a planeswalker by id")
            defender = self.player(target).index
        except ScenarioError:
            walkers = [
                o
                for o in self.permanents_named(target)
                if o.card.is_a("planeswalker") and o.controller != p
            ]
            if not walkers:
                raise IllegalAction(
                    f"{target} is not an opponent or a planeswalker an opponent controls",
                    "508.1b",
                ) from None
            return walkers[0].controller, walkers[0]
        if defender == p or not self.players[defender].in_game:
            raise IllegalAction(f"{target} is not an opponent in the game", "508.1b")
        if self.defender is not None and defender != self.defender:
            raise IllegalAction(
                f"{self.players[self.defender].name} is the defending player of this combat",
                "506.2a",
            )
        return defender, None

    def _check_defender(self, p: int, action: Action) -> int:
        """506.2a: as a turn-based action of the beginning of combat step, the attacking player
        chooses one of their opponents as the defending player."""
        if self.awaiting is None or self.awaiting[0] != "defender" or p != self.awaiting[1]:
            raise IllegalAction(
                "the defending player is chosen by the active player as the beginning of combat "
                "step begins, when the game uses that option",
                "506.2a",
            )
        if len(action.targets) != 1:
            raise IllegalAction("choose one opponent as the defending player", "506.2a")
        ref = action.targets[0]
        try:
            chosen = self.player(ref).index if isinstance(ref, str) else int(ref[1])
        except ScenarioError:
            raise IllegalAction(f"{ref} is not a player", "506.2a") from None
        if chosen not in self.opponents(p):
            raise IllegalAction(f"{self.players[chosen].name} is not an opponent", "506.2a")
        return chosen

    def _apply_defender(self, p: int, chosen: int) -> None:
        self.awaiting = None
        self.defender = chosen
        self._emit(
            "declare",
            f"{self.players[p].name} chooses {self.players[chosen].name} as the defending player",
            cite("506.2a"),
            p,
        )
        self._give_priority(self.active, cite("507.2", "117.3a"))
        self._run_shortcut()

    def _can_attack(self, p: int, obj: GameObject, seen: set[int]) -> GameObject:
        """508.1a: an untapped creature, controlled since the turn began or with haste."""
        if obj.id in seen:
            raise IllegalAction(f"{obj.label} is declared twice", "508.1a")
        if obj.controller != p and not (self.teams and self._same_team(obj.controller, p)):
            raise IllegalAction(
                f"{obj.label} is controlled by {self.players[obj.controller].name}", "508.1a"
            )
        if not self.is_creature(obj):
            raise IllegalAction(f"{obj.label} is not a creature", "508.1a")
        if obj.tapped:
            raise IllegalAction(f"{obj.label} is tapped", "508.1a")
        if self.has(obj, "defender"):
            raise IllegalAction(f"{obj.label} has defender and can't attack", "702.3b")
        restriction = self._attack_restriction(p) if self.restrictions else None
        if restriction is not None:
            raise IllegalAction(
                f"{restriction.label}'s static ability says creatures can't attack",
                "508.1c",
            )
        if obj.sick and not self.has(obj, "haste"):
            raise IllegalAction(
                f"{obj.label} has not been under {self.players[p].name}'s control since the turn "
                "began and has no haste",
                "508.1a",
                "302.6",
            )
        return obj

    def _apply_attack(self, p: int, chosen: list[Attack]) -> None:
        self.awaiting = None
        self.attackers_declared = bool(chosen)
        vigilant = []
        for obj, defender, walker in chosen:
            if self.has(obj, "vigilance"):
                vigilant.append(obj.label)
            else:
                obj.tapped = True
            obj.attacking = defender
            obj.attacking_planeswalker = walker.id if walker is not None else None
        if chosen:
            text = ", ".join(
                f"{o.label} attacking {w.label if w else self.players[d].name}"
                for o, d, w in chosen
            )
            rules = cite("508.1", "508.1f", "703.4i")
            if any(w for _, _, w in chosen):
                rules.append("508.1b")
            if self.teams is not None:  # 805.10b; MTR 4.2: by default, the head across
                rules.append("805.10b")
                if any(w is None and d == self._head_across(o.controller) for o, d, w in chosen):
                    rules.append("MTR 4.2")
                    text += (
                        " (each creature without a named target attacks the head sitting across)"
                    )
            note = ""
            if vigilant:
                rules.append("702.20b")
                note = f" ({', '.join(vigilant)}: vigilance, not tapped)"
            self._emit(
                "declare", f"{self.players[p].name} declares attackers: {text}{note}", rules, p
            )
        else:
            self._emit("declare", f"{self.players[p].name} declares no attackers", cite("508.1"), p)
        self._give_priority(self.active, cite("508.2", "117.3a"))
        self._run_shortcut()

    # ---- 509: declare blockers ------------------------------------------------------------
    def _check_block(self, p: int, action: Action) -> list[tuple[GameObject, GameObject]]:
        """509.1a-b: each untapped creature of the defending player blocks at most one creature
        attacking that player (or their planeswalkers); flying and menace restrict blocks."""
        if self.awaiting is None or self.awaiting[0] != "blockers":
            raise IllegalAction(
                "blockers are declared as the declare blockers step begins "
                f"(it is the {self.step.label})",
                "509.1",
                "703.4j",
            )
        if p != self.awaiting[1]:
            raise IllegalAction(
                f"{self.players[self.awaiting[1]].name} declares blockers now (APNAP order)",
                "509.1",
                "101.4",
            )
        chosen: list[tuple[GameObject, GameObject]] = []
        seen: list[int] = []
        for bref, aref in action.blocks:
            blocker = self.pick_permanent(bref, p, lambda o: self._can_block(o, seen))
            attacker = self.pick_permanent(
                aref, None, lambda o, b=blocker: self._can_be_blocked_by(o, b, p)
            )
            if (blocker, attacker) in chosen:
                raise IllegalAction(f"{blocker.label} blocks {attacker.label} twice", "509.1a")
            seen.append(blocker.id)
            chosen.append((blocker, attacker))
        counts: dict[int, int] = {}
        for _, attacker in chosen:
            counts[attacker.id] = counts.get(attacker.id, 0) + 1
        for _, attacker in chosen:
            if self.has(attacker, "menace") and counts[attacker.id] < 2:
                raise IllegalAction(
                    f"{attacker.label} has menace: it can't be blocked except by two or more "
                    "creatures",
                    "702.111b",
                    "509.1b",
                )
        return chosen

    def _can_block(self, obj: GameObject, seen: list[int]) -> GameObject:
        """509.1a: an untapped creature blocks one attacker (two if it can block an additional
        creature)."""
        times = seen.count(obj.id) if seen else 0
        if times and (
            times >= 2 or not self.has(obj, "can block an additional creature each combat")
        ):
            raise IllegalAction(
                f"{obj.label} can block only {'two creatures' if times >= 2 else 'one creature'}",
                "509.1a",
            )
        if not self.is_creature(obj) or obj.tapped:
            raise IllegalAction(f"{obj.label} is not an untapped creature", "509.1a")
        return obj

    def _can_be_blocked_by(self, obj: GameObject, blocker: GameObject, p: int) -> GameObject:
        if obj.attacking != p and not (
            obj.attacking is not None and self._same_team(obj.attacking, p)  # 805.10d
        ):
            raise IllegalAction(f"{obj.label} is not attacking {self.players[p].name}", "509.1a")
        if self.has(obj, "flying") and not (
            self.has(blocker, "flying") or self.has(blocker, "reach")
        ):
            raise IllegalAction(
                f"{obj.label} has flying: it can't be blocked except by creatures with flying "
                f"or reach, and {blocker.label} has neither",
                "702.9b",
                "509.1b",
            )
        color = self._protected_from(obj, self._colors(blocker))  # type: ignore[attr-defined]
        if color is not None:
            raise IllegalAction(
                f"{obj.label} has protection from {color}: it can't be blocked by {color} "
                f"creatures, and {blocker.label} is {color}",
                "702.16f",
                "509.1b",
            )
        for walk in _landwalks(obj):
            land = walk.removesuffix("walk")
            if self.has(obj, walk) and any(
                land in o.card.subtypes for o in self.battlefield.of(p) if o.card.is_a("land")
            ):
                raise IllegalAction(
                    f"{obj.label} has {walk}: it can't be blocked as long as "
                    f"{self.players[p].name} controls a {land.capitalize()}",
                    "702.14c",
                    "509.1b",
                )
        return obj

    def _apply_block(self, p: int, chosen: list[tuple[GameObject, GameObject]]) -> None:
        for blocker, attacker in chosen:
            if blocker.blocking is None:
                blocker.blocking = attacker.id
            else:
                blocker.also_blocking = (*blocker.also_blocking, attacker.id)
            attacker.blocked = True
        if chosen:
            text = ", ".join(f"{b.label} blocks {a.label}" for b, a in chosen)
            self._emit(
                "declare",
                f"{self.players[p].name} declares blockers: {text}",
                cite("509.1", "703.4j"),
                p,
            )
        else:
            self._emit("declare", f"{self.players[p].name} declares no blockers", cite("509.1"), p)
        self.blockers_pending.remove(p)
        self._next_blocker_declaration()

    def _next_blocker_declaration(self) -> None:
        self.blockers_pending = [d for d in self.blockers_pending if self.players[d].in_game]
        if self.blockers_pending:
            self.awaiting = ("blockers", self.blockers_pending[0], 0)
            return
        self.awaiting = None
        self._give_priority(self.active, cite("509.2", "117.3a"))
        self._run_shortcut()

    # ---- 510: combat damage ---------------------------------------------------------------
    def _strikes_first(self, obj: GameObject) -> bool:
        return self.has(obj, "first strike") or self.has(obj, "double strike")

    def _combat_damage(self, first_strike: bool) -> None:
        """510.1-2: each attacking and blocking creature assigns its damage, dealt at once;
        in a first-strike step only first and double strikers (702.7b, 702.4b), in the second
        step the others and double strikers again (702.4c)."""
        assignments: list[tuple[GameObject, tuple[str, int], int]] = []
        fighters = [
            o for o in self.battlefield if o.attacking is not None or o.blocking is not None
        ]
        rules = cite("510.1", "510.2", "703.4m")
        for obj in fighters:
            double = self.has(obj, "double strike")
            if first_strike and not self._strikes_first(obj):
                continue
            if not first_strike and obj.struck_first and not double:
                continue
            if first_strike:
                obj.struck_first = True
            if double:
                rules.append("702.4b")
            power = self.power(obj)
            if power <= 0:
                continue
            if obj.attacking is not None:
                assignments.extend(self._attacker_assignments(obj, power, rules))
            elif obj.also_blocking:  # 510.1d: as its controller announced, if it had a choice
                announced = self._assigned_damage(obj)
                if announced is None:
                    blocked = self._blocked_by(obj)
                    announced = [(("object", blocked[0].id), power)] if blocked else []
                assignments.extend((obj, r, n) for r, n in announced if n > 0)
            else:
                attacker = self._object(obj.blocking) if obj.blocking is not None else None
                if attacker is not None and attacker.attacking is not None:
                    assignments.append((obj, ("object", attacker.id), power))
        label = "first-strike combat damage" if first_strike else "combat damage"
        if first_strike or any(o.struck_first for o in fighters):
            rules.append("702.7b")
        rules = list(dict.fromkeys(rules))
        if not assignments:
            self._emit("turn-based action", f"no {label} is dealt", rules)
            return
        self._emit("turn-based action", f"{label} is assigned and dealt simultaneously", rules)
        if self.shields:  # 615.7: which damage a shield prevents
            assignments = self._order_for_shields(assignments)  # type: ignore[attr-defined]
        for obj, recipient, amount in assignments:
            keywords = frozenset(
                k for k in ("deathtouch", "lifelink", "infect") if self.has(obj, k)
            )
            colors = self._colors(obj)  # type: ignore[attr-defined]
            self._damage(
                recipient, amount, obj.label, keywords, obj.controller, combat=True, colors=colors
            )

    def _attacker_assignments(
        self, obj: GameObject, power: int, rules: list[str]
    ) -> list[tuple[GameObject, tuple[str, int], int]]:
        """510.1b-c: an unblocked attacker damages what it attacks; a blocked one its blockers:
        as its controller announced (510.1c, :mod:`~kb.engine.damage`) when it had a choice,
        else all to its one blocker (or, blocked with trample and no blocker left, 702.19d, all
        to what it attacks)."""
        assert obj.attacking is not None
        announced = self._assigned_damage(obj)
        if announced is not None:
            return [(obj, recipient, n) for recipient, n in announced if n > 0]
        attacked: tuple[str, int] | None = ("player", obj.attacking)
        if obj.attacking_planeswalker is not None:
            walker = self._object(obj.attacking_planeswalker)
            attacked = ("object", walker.id) if walker is not None else None
        if not obj.blocked:
            return [(obj, attacked, power)] if attacked else []
        blockers = self._blockers_of(obj)
        trample = self.has(obj, "trample")
        if not blockers and not trample:
            return []
        out = []
        left = power
        for i, b in enumerate(blockers):
            lethal = 1 if self.has(obj, "deathtouch") else max(0, self.toughness(b) - b.damage)
            # The last blocker takes the rest unless trample can carry it on to what the
            # attacker attacks: with that gone (702.19f), the blockers take it all (510.1c).
            last = i == len(blockers) - 1 and not (trample and attacked)
            amount = left if last else min(left, lethal)
            if amount:
                out.append((obj, ("object", b.id), amount))
            left -= amount
        if trample and left > 0 and attacked:
            out.append((obj, attacked, left))
            rules.append("702.19b")
        return out


def _landwalks(obj: GameObject) -> list[str]:
    """The landwalk keywords a permanent may have (702.14): from its card (as the layers made
    it, text changes included) or gained until some point."""
    kws = [k for k in obj.card.keywords if k.endswith("walk")]
    for m in obj.modifiers:
        kws += [k for k in m.keywords if k.endswith("walk")]
    return kws
