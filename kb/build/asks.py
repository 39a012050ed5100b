""" "Players ask" in a build: the questions of ``corpus/asks`` read (:mod:`kb.sources.asks`) and
attached to canonical rules.

The questions cite rules of the edition they were written from (:data:`ASKS_EDITION`). Where the
knowledge base has that edition, each number is mapped to its canonical rule, and a number the
edition lacks is reported (file and line) and left out, with the question when it cites nothing
else. Without that edition (a build of other texts) the numbers are kept as written.
"""

from __future__ import annotations

from pathlib import Path

from kb.base.paths import CORPUS_DIR
from kb.build.read import display_path
from kb.knowledge.asks import Ask
from kb.knowledge.model import KnowledgeBase
from kb.sources.asks import read_asks
from kb.sources.records import Problem

#: The English edition the questions' rule numbers follow.
ASKS_EDITION = "en-2025-11-14"
ASKS_DIR = CORPUS_DIR / "asks"


def attach_asks(kb: KnowledgeBase, root: Path = ASKS_DIR) -> list[Problem]:
    """Read the questions under ``root`` into ``kb.asks`` (cited numbers made canonical) and
    return the problems met: bad files and entries, numbers the edition does not have."""
    records, problems = read_asks(root)
    table = kb.rules.get(ASKS_EDITION)
    asks: list[Ask] = []
    shown: dict[str, str] = {}  # display_path resolves the path: once per file, not per question
    for rec in records:
        rules = rec.rules
        if table is not None:
            rules = []
            for number in rec.rules:
                rule = table.get(number)
                if rule is None:
                    problems.append(
                        Problem(rec.source, rec.line, f"{ASKS_EDITION} has no rule {number}")
                    )
                else:
                    rules.append(rule.canonical or number)
            if not rules:
                continue
        source = shown.get(rec.source) or shown.setdefault(rec.source, display_path(rec.source))
        asks.append(Ask(rec.key, rec.lang, rec.q, list(dict.fromkeys(rules)), source, rec.line))
    kb.asks = asks
    return problems
