"""The priority engine: a deterministic simulator of timing and priority, and its examples.

The core (:mod:`kb.engine.game`) is pure: a :class:`Game` applies :class:`Action` objects and
records :class:`Event` objects naming the rules. :mod:`kb.engine.script` reads the example
language and :mod:`kb.engine.examples` runs the Markdown examples of ``corpus/examples``.
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
