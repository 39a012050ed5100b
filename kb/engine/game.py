"""The game: the front door of the engine (``perform``, ``legal_actions``, ``snapshot``).

The rules live in modules named after the rules' own sections: :mod:`~kb.engine.objects` and
:mod:`~kb.engine.state` (players, objects, zones), :mod:`~kb.engine.turns` (500-514),
:mod:`~kb.engine.priority` (117), :mod:`~kb.engine.casting` (601, 602),
:mod:`~kb.engine.mana_abilities` (605), :mod:`~kb.engine.resolving` (608),
:mod:`~kb.engine.special` and :mod:`~kb.engine.special_variants` (116),
:mod:`~kb.engine.combat` (506-511), :mod:`~kb.engine.damage` (510.1), :mod:`~kb.engine.sba`
(704), :mod:`~kb.engine.triggers` (603), :mod:`~kb.engine.zones` (111.8, 707.10),
:mod:`~kb.engine.choices` (608.2d), :mod:`~kb.engine.teams` (117.6, 805) and
:mod:`~kb.engine.shortcuts` (MTR 4.2).

A :class:`Game` is a deterministic state machine. Every change happens through
:meth:`Game.perform` (an :class:`Action` by a player) or the automatic processes the rules
describe (turn-based actions, state-based actions, triggered abilities); each records
:class:`Event` objects that name the rules justifying them. An illegal action is rejected with
a message citing a rule, and leaves the state unchanged: checks run before any change.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from kb.engine.cards import Effect
from kb.engine.casting import Casting, _instant_or_sorcery
from kb.engine.choices import ResolutionChoices
from kb.engine.combat import Combat
from kb.engine.continuous import ContinuousEffects
from kb.engine.copying import Copies
from kb.engine.damage import DamageAssignment
from kb.engine.effects import Effects
from kb.engine.keywords import KeywordRules
from kb.engine.mana_abilities import ManaAbilities
from kb.engine.objects import SHORTCUTS, Action, Event, GameObject, IllegalAction, ScenarioError
from kb.engine.priority import Priority
from kb.engine.replacement import Replacements
from kb.engine.resolving import Resolving
from kb.engine.sba import StateBasedActions
from kb.engine.setup import Setup
from kb.engine.shortcuts import GroupShortcut, Shortcuts
from kb.engine.special import SpecialActions
from kb.engine.special_variants import VariantSpecialActions
from kb.engine.state import GameState
from kb.engine.teams import Teams
from kb.engine.triggers import Triggers
from kb.engine.turns import Turns
from kb.engine.zones import ZoneChanges

__all__ = ["SHORTCUTS", "Action", "Event", "Game", "GameObject", "IllegalAction", "ScenarioError"]


class Game(
    Priority,
    Casting,
    ManaAbilities,
    Resolving,
    Effects,
    ContinuousEffects,
    Copies,
    Replacements,
    KeywordRules,
    ZoneChanges,
    ResolutionChoices,
    SpecialActions,
    VariantSpecialActions,
    Combat,
    DamageAssignment,
    StateBasedActions,
    Triggers,
    Turns,
    Shortcuts,
    GroupShortcut,
    Teams,
    Setup,
    GameState,
):
    """One game of two to four players (800.1 for three or more): the front door of the engine.

    ``perform`` applies an action, ``legal_actions`` lists what the acting player may do,
    ``snapshot`` gives the state as plain data."""

    def perform(self, action: Action) -> list[Event]:
        """Apply one action; return the events it produced (a ``rejected`` event if illegal)."""
        start = len(self.events)
        try:
            p = self.player(action.player).index
        except ScenarioError as err:
            self._emit("rejected", str(err), [])
            return self.events[start:]
        try:
            plan = self._validate(p, action)
        except IllegalAction as err:
            rules = err.rules
            self._emit(
                "rejected",
                f"{self.players[p].name} can't do that: {err.message}",
                rules,
                p,
                action=action.describe(),
            )
        except ScenarioError as err:
            self._emit("rejected", f"{self.players[p].name} can't do that: {err}", [], p)
        else:
            # Validation passed, so applying cannot be refused: the state changes only here.
            ACTIONS[action.kind][1](self, p, plan)
            self.actions_taken += 1
        return self.events[start:]

    def _validate(self, p: int, action: Action) -> Any:
        """Check an action against the rules without changing the game; return what applying it
        needs (the card, targets, payment plan), or raise :class:`IllegalAction` citing rules."""
        if self.game_over and action.kind != "order_triggers":
            raise IllegalAction("the game is over", "104.1")
        steps = ACTIONS.get(action.kind)
        if steps is None:
            raise ScenarioError(f"unknown action {action.kind!r} (known: {', '.join(ACTIONS)})")
        return steps[0](self, p, action)

    def legal_actions(self) -> list[Action]:
        """Every action the engine would accept now from the player who must act, with cards,
        targets and defenders given by id or index. Combat declarations are listed for none or
        one creature, and two blockers on one attacker (larger declarations are legal too, but
        their number grows exponentially); a few combat damage divisions; the announcements a
        player may make at any time (concede, hold, order triggers, shortcuts, resolution
        choices, groups) are not listed, nor a teammate's actions under shared team turns."""
        if self.game_over:
            return []
        self.plan_memo = {}
        try:
            out = []
            actor = self.priority if self.awaiting is None else self.awaiting[1]
            for action in self._candidate_actions():
                # The checks perform runs (is_legal without its wrappers: every candidate is
                # for the player who must act, in a game that is not over).
                try:
                    ACTIONS[action.kind][0](self, actor, action)
                except (IllegalAction, ScenarioError):
                    continue
                out.append(action)
            return out
        finally:
            memo, self.plan_memo = self.plan_memo, None
            # A memoised refusal holds its traceback, whose frames hold the memo: breaking
            # that cycle here frees them at once instead of in the cyclic garbage collector.
            for found in memo.values():
                if isinstance(found, BaseException):
                    found.__traceback__ = None

    def _candidate_actions(self) -> list[Action]:
        """What the acting player might try; :meth:`is_legal` decides, so no rule is stated here."""
        if self.awaiting is not None:
            kind, who, _ = self.awaiting
            name = self.players[who].name
            mine = self.battlefield.of(who)
            if kind == "attackers":
                out = [Action("attack", name)]
                walkers = [
                    w.id
                    for w in self.battlefield
                    if w.controller != who and w.card.is_a("planeswalker")
                ]
                for o in mine:
                    if not self.is_creature(o) or o.tapped:
                        continue  # the first tests of _can_attack (508.1a)
                    for d in self.opponents(who):
                        defender = self.players[d].name
                        out.append(Action("attack", name, attackers=((o.id, defender),)))
                    for w in walkers:
                        out.append(Action("attack", name, attackers=((o.id, w),)))
                return out
            if kind == "blockers":
                out = [Action("block", name)]
                attackers = [o for o in self.battlefield if o.attacking == who]
                for b in mine:
                    for a in attackers:
                        out.append(Action("block", name, blocks=((b.id, a.id),)))
                # Two creatures blocking one attacker: its controller divides its damage (510.1c).
                pair = [b for b in mine if self.is_creature(b) and not b.tapped][:2]
                if len(pair) == 2:
                    for a in attackers:
                        blocks = ((pair[0].id, a.id), (pair[1].id, a.id))
                        out.append(Action("block", name, blocks=blocks))
                return out
            if kind == "damage":
                return self._assignment_candidates()
            if kind == "defender":
                return [
                    Action("defender", name, targets=(("player", d),)) for d in self.opponents(who)
                ]
            return [Action("discard", name, c.id) for c in self.players[who].hand]
        if self.priority is None:
            return []
        p = self.priority
        name = self.players[p].name
        # Actions are values: the ones listed again and again (pass, mana, lands, the first
        # cast of each card) are made once.
        made = self.listed_actions
        out = [made.get(name) or made.setdefault(name, Action("pass", name))]
        pl = self.players[p]
        # Candidates that the checks would refuse for timing (the same predicates they use) are
        # not listed: it keeps enumeration fast, and is_legal still decides every listed one.
        window = self._sorcery_window(p)
        locked = self._split_second_on_stack()
        for card in pl.hand:
            cdef = card.card
            land, fast, has_special = cdef.hand_flags
            if land:
                if window and pl.lands_played == 0:
                    key = ("play_land", name, card.id)
                    action = made.get(key)
                    if action is None:
                        action = made[key] = Action("play_land", name, card.id)
                    out.append(action)
                continue
            # A cost the player can't pay (or none: an unknown card) refuses every way of casting
            # the card from the hand, so none is built (payment plans are memoised per cost). A
            # face-down cast has a cost of its own.
            if (
                (fast or window)
                and not locked
                and cdef.cost is not None
                and self._plan_memo(p, cdef.cost, None) is not None
            ):
                if cdef.modes:
                    for mode, effects in enumerate(cdef.modes, 1):
                        options = self._target_options(effects + cdef.effects, p)
                        self._cast_candidates(out, p, card.id, options, mode)
                else:
                    self._cast_candidates(out, p, card.id, self._target_options(cdef.effects, p))
            if cdef.morph is not None and window and not locked:
                out.append(Action("cast", name, card.id, face_down=True))
            if not has_special:  # CardDef.hand_flags: a new special action must be added there too
                continue
            for special, has in (
                ("foretell", cdef.foretell),
                ("plot", cdef.plot),
                ("suspend", cdef.suspend),
                ("discard_special", cdef.discard_as_instant),
            ):
                if has:
                    out.append(Action(special, name, card.id))
        for card in pl.exile:
            if card.exiled_as in ("foretold", "plotted") and not locked:
                for targets in self._target_choices(card.card.effects, p):
                    out.append(Action("cast", name, card.id, targets=targets, zone="exile"))
        if pl.companion is not None and window:
            out.append(Action("companion", name, pl.companion.name))
        if self.delayed or self.restrictions or self.planechase or self.conspiracies or self.rooms:
            out += self._variant_special_candidates(p)
        # The player's permanents, less those that can do nothing: tapped, face up, with only
        # abilities that need {T} (a tapped land, say).
        for obj in [
            o for o in self.battlefield.of(p) if o.face_down or not o.tapped or not o.card.tap_only
        ]:
            if obj.face_down:
                out.append(Action("turn_face_up", name, obj.id))
                continue
            cdef = obj.card
            if cdef.tap_only:
                # Only {T} mana abilities (a land, say): all of them, or none when {T} can't be
                # paid; the loop below, in one step, with the actions made once.
                if not cdef.abilities or self._tap_blocked(obj):
                    continue
                key = (name, obj.id)
                actions = made.get(key)
                if actions is None:
                    actions = made[key] = [
                        Action("mana", name, obj.id, ability=i + 1) for i, _, _ in cdef.tap_mana
                    ]
                out += actions
                continue
            abilities = cdef.abilities
            untappable = obj.tapped or None  # the first test of _tap_blocked, inline
            for i, ability in enumerate(abilities):
                if ability.tap:
                    if untappable is None:
                        untappable = self._tap_blocked(obj)
                    if untappable:
                        continue
                if ability.is_mana_ability:
                    key = (name, obj.id, i)
                    action = made.get(key)
                    if action is None:
                        action = made[key] = Action("mana", name, obj.id, ability=i + 1)
                    out.append(action)
                elif not locked and (window or not ability.sorcery_speed):
                    for targets in self._target_choices(ability.effects, p):
                        out.append(Action("activate", name, obj.id, targets=targets, ability=i + 1))
        return out

    def _cast_candidates(
        self,
        out: list[Action],
        p: int,
        card: int,
        options: list[list[tuple[str, int]]],
        mode: int | None = None,
    ) -> None:
        """A cast of ``card`` for each choice of targets (one of the ``options`` for each target
        word), unless what doesn't depend on the targets (timing, cost, payment) already refuses
        the first choice: then it refuses them all, and the choices are never built."""
        if not all(options):
            return  # a target word with no option: no choice of targets
        name = self.players[p].name
        targets = tuple(o[0] for o in options)
        made = self.listed_actions
        key = ("cast", name, card, targets, mode)
        first = made.get(key)
        if first is None:
            first = made[key] = Action("cast", name, card, targets=targets, mode=mode)
        # _cast_affordable, inline: the checks that don't depend on the targets, then payment.
        memo = self.plan_memo
        assert memo is not None
        found = self._cast_base_memo(p, first, memo)
        if isinstance(found, IllegalAction):
            return
        if self._plan_memo(p, found[2], None) is not None:
            out.append(first)
            choices = product(*options)
            next(choices)
            out += [Action("cast", name, card, targets=t, mode=mode) for t in choices]

    def _target_choices(
        self, effects: tuple[Effect, ...], p: int
    ) -> list[tuple[tuple[str, int], ...]]:
        """Every choice of targets: one option for each target word, in order."""
        return list(product(*self._target_options(effects, p)))

    def _target_options(self, effects: tuple[Effect, ...], p: int) -> list[list[tuple[str, int]]]:
        """The options for each target word of ``effects`` (memoised per kind of target while
        legal actions are listed)."""
        out = []
        memo = self.plan_memo
        if memo is not None and not effects:
            return out
        for effect in effects:
            if not effect.target:
                continue
            key = ("targets", effect.target, p)
            if memo is not None and key in memo:
                out.append(memo[key])
                continue
            options: list[tuple[str, int]] = []
            if effect.target in ("any", "player"):
                options += [("player", p.index) for p in self.in_game()]
            # Every creature and planeswalker is among the watched permanents (in battlefield
            # order), so only those are read; is_creature, inline.
            if effect.target == "creature":
                options += [
                    ("object", o.id)
                    for o in self.battlefield.watched()
                    if o.face_down or o.card.kind_flags[0]
                ]
            if effect.target == "permanent":
                options += [("object", o.id) for o in self.battlefield]
            if effect.target == "any":
                options += [
                    ("object", o.id)
                    for o in self.battlefield.watched()
                    if o.face_down or o.card.kind_flags[0] or o.card.kind_flags[1]
                ]
            if effect.target == "yours":
                options += [
                    ("object", o.id)
                    for o in self.battlefield.watched()
                    if o.controller == p and (o.face_down or o.card.kind_flags[0])
                ]
            if effect.target == "spell":
                options += [("object", s.id) for s in self.stack if s.kind == "spell"]
            if effect.target == "instant or sorcery":
                options += [("object", s.id) for s in self.stack if _instant_or_sorcery(s)]
            # hexproof and shroud (702.11b, 702.18a): not a legal target for this player
            options = [
                o for o in options if o[0] == "player" or self._untargetable_id(o[1], p) is None
            ]
            if memo is not None:
                memo[key] = options
            out.append(options)
        return out

    def is_legal(self, action: Action) -> bool:
        """Whether the action would be accepted: the same validation as :meth:`perform`, without
        changing the game."""
        return self.why_illegal(action) is None

    def why_illegal(self, action: Action) -> IllegalAction | ScenarioError | None:
        """Why :meth:`perform` would refuse the action (the error citing the rules), or None."""
        try:
            self._validate(self.player(action.player).index, action)
        except (IllegalAction, ScenarioError) as err:
            return err
        return None


# Each action kind: its validation (raises IllegalAction citing the rules, changes nothing) and
# the step that applies a validated action. perform, is_legal and legal_actions all use these.
ACTIONS: dict[str, tuple[Any, Any]] = {
    "pass": (Game._check_pass, Game._apply_pass),
    "cast": (Game._check_cast, Game._apply_cast),
    "activate": (Game._check_activate, Game._apply_activate),
    "mana": (Game._check_mana, Game._apply_mana),
    "play_land": (Game._check_play_land, Game._apply_play_land),
    "turn_face_up": (Game._check_turn_face_up, Game._apply_turn_face_up),
    "attack": (Game._check_attack, Game._apply_attack),
    "block": (Game._check_block, Game._apply_block),
    "discard": (Game._check_discard, Game._apply_discard),
    "order_triggers": (Game._check_order_triggers, Game._apply_order_triggers),
    "hold": (Game._check_in_game, Game._apply_hold),
    "concede": (Game._check_concede, Game._apply_concede),
    "shortcut": (Game._check_shortcut, Game._apply_shortcut),
    "interrupt": (Game._check_interrupt, Game._apply_interrupt),
    "keep": (Game._check_keep, Game._apply_keep),
    "defender": (Game._check_defender, Game._apply_defender),
    "assign": (Game._check_assign, Game._apply_assign),
    "announce": (Game._check_announce, Game._apply_announce),
    "inquire": (Game._check_inquire, Game._apply_inquire),
    "trigger_targets": (Game._check_trigger_targets, Game._apply_trigger_targets),
    "foretell": (Game._check_special, Game._apply_foretell),
    "plot": (Game._check_special, Game._apply_plot),
    "suspend": (Game._check_special, Game._apply_suspend),
    "companion": (Game._check_special, Game._apply_companion),
    "discard_special": (Game._check_special, Game._apply_discard_special),
    "stop_effect": (Game._check_stop_effect, Game._apply_stop_effect),
    "ignore_effect": (Game._check_ignore_effect, Game._apply_ignore_effect),
    "planar_die": (Game._check_planar_die, Game._apply_planar_die),
    "reveal_conspiracy": (Game._check_reveal_conspiracy, Game._apply_reveal_conspiracy),
    "unlock": (Game._check_unlock, Game._apply_unlock),
    "group": (Game._check_group, Game._apply_group),
    "interrupt_group": (Game._check_interrupt_group, Game._apply_interrupt_group),
    "replace_first": (Game._check_replace_first, Game._apply_replace_first),
    "shield_first": (Game._check_shield_first, Game._apply_shield_first),
}
