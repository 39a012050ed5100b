"""The priority engine: a deterministic simulator of timing and priority, and its examples.

The core is pure: a :class:`Game` (:mod:`kb.engine.game`, the front door) applies
:class:`Action` objects and records :class:`Event` objects naming the rules. Its parts follow
the rules' sections: :mod:`~kb.engine.turns` (500-514), :mod:`~kb.engine.priority` (117),
:mod:`~kb.engine.casting` (601-602), :mod:`~kb.engine.mana_abilities` (605),
:mod:`~kb.engine.resolving` and :mod:`~kb.engine.effects` (608, 120, 122, 111),
:mod:`~kb.engine.special` and :mod:`~kb.engine.special_variants` (116),
:mod:`~kb.engine.combat` (506-511), :mod:`~kb.engine.damage` (510.1), :mod:`~kb.engine.sba`
(704), :mod:`~kb.engine.triggers` (603), :mod:`~kb.engine.zones` (111.8, 707.10),
:mod:`~kb.engine.choices` (608.2d), :mod:`~kb.engine.teams` (117.6, 805, 810),
:mod:`~kb.engine.shortcuts` (MTR 4.2), :mod:`~kb.engine.setup` (scenario setup),
:mod:`~kb.engine.layers` and :mod:`~kb.engine.continuous` (611, 613),
:mod:`~kb.engine.copying` (707 copy effects in layer 1, 612 text changes in layer 3),
:mod:`~kb.engine.replacement` (614-616).
:mod:`kb.engine.cards` reads card definitions (with :mod:`~kb.engine.effect_text`,
:mod:`~kb.engine.layer_text`, :mod:`~kb.engine.copy_text` and :mod:`~kb.engine.trigger_text`),
:mod:`kb.engine.script` and
:mod:`kb.engine.script_actions` the example language,
and :mod:`kb.engine.examples` runs the Markdown examples of ``corpus/examples`` and loads their
translations.

Layer: may import :mod:`kb.knowledge`, :mod:`kb.text` and :mod:`kb.base` only (it runs without a
built knowledge base); the build runs its examples and the pages show their traces.
"""

from kb.engine.cards import CardDef, CardError, CardPool, default_pool, load_pool, parse_card
from kb.engine.examples import (
    DEFAULT_EXAMPLES_DIR,
    ExampleResult,
    examples_cli,
    run_example_file,
    run_examples,
)
from kb.engine.game import Action, Event, Game, IllegalAction, ScenarioError
from kb.engine.steps import Step, parse_step

__all__ = [
    "DEFAULT_EXAMPLES_DIR",
    "Action",
    "CardDef",
    "CardError",
    "CardPool",
    "Event",
    "ExampleResult",
    "Game",
    "IllegalAction",
    "ScenarioError",
    "Step",
    "default_pool",
    "examples_cli",
    "load_pool",
    "parse_card",
    "parse_step",
    "run_example_file",
    "run_examples",
]
