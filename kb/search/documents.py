"""What the index holds: one :class:`Doc` per distinct searchable text, the prior each kind and
shape of text gets, an example's prose and script, and the names of the index's files.

Split from :mod:`kb.search.indexer` so that the document state (:mod:`kb.search.docstate`) and the
stored snippets (:mod:`kb.search.snippets`) read them without importing the indexer, which
imports both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kb.knowledge.model import Rule
from kb.text.rulenum import try_parse

FORMAT = 14
META_FILE = "meta.json"
#: What a build compares before reusing an index (format, content hash, analyser, vocabulary):
#: the head of ``meta.json`` in a file of its own, so that it is read without the 5 MB rest.
HEAD_FILE = "head.json"
INDEX_NAME = "kb"

#: Relative weight of a document by kind: a short glossary definition or wiki paragraph should
#: not outrank the rule it summarises (a query that *is* a glossary term pins that entry first).
KIND_BOOST = {"glossary": 0.35, "commentary": 0.6, "tournament": 0.8, "example": 0.8, "ask": 1.0}
#: A bare heading (a title and no text) and a rule that only introduces a list ("... the
#: following rules:") say less than the subrules under them, which a reader wants first.
HEADING_PRIOR = 0.6
LIST_INTRO_PRIOR = 0.75
#: A rule that defines a concept ("Lifelink is a static ability", "To mill a card means ...",
#: "The term dies means ...") answers "what is X" questions before the rules that use X.
DEFINITION_PRIOR = 1.2
_DEFINES = re.compile(
    r"\bmeans\b|^to [\w ,-]+ (?:is|means) |^the term |\bis (?:a|an) (?:static|triggered|activated|"
    r"keyword|characteristic-defining) |\bsignifie\b|とは",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Doc:
    """One indexed document and what the searcher needs to know about it without the index."""

    ref: str  # "r|edition|number", "g|edition|key", "c|id", "t|id", "x|id"
    kind: str
    lang: str
    group: str  # hits with the same group are one result (a rule across editions/languages)
    title: str
    body: str
    number: str = ""
    canonical: str = ""
    editions: list[str] = field(default_factory=list)
    current: bool = True
    prior: float = 1.0  # how much the document's score counts (kind, heading, list intro)
    main: int = -1  # characters of ``body`` that are the rule's own text (-1: all of it)
    names: tuple[str, ...] = ()  # a glossary entry's term and aliases

    def meta(self) -> list[Any]:
        """The compact row of ``meta.json``."""
        return [self.ref, self.kind, self.lang, self.group, self.editions, self.current]


def rule_group(rule: Rule) -> str:
    """Group key of a rule: its canonical number, or its own address when it has none."""
    return (
        f"r:{rule.canonical}" if rule.canonical else f"r:{rule.lang}:{rule.edition}:{rule.number}"
    )


_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_RULES_LINE = re.compile(r"^rules:.*$", re.M | re.I)
_HEADING = re.compile(r"^#+[ \t]+.*$", re.M)


def example_prose(markdown: str) -> str:
    """The readable text of an example: its Markdown without the title, the ``rules:`` line
    and the fenced game scripts (what a search snippet should quote)."""
    text = _FENCE.sub("", markdown)
    text = _HEADING.sub("", text, count=1)
    text = _RULES_LINE.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def example_script(markdown: str) -> str:
    """The fenced game scripts of an example, joined (searchable at a lower weight)."""
    return "\n".join(m.group(1).strip() for m in _FENCE.finditer(markdown))


def rule_prior(rule: Rule) -> float:
    return _text_prior(rule.text, bool(rule.examples))


@lru_cache(maxsize=1 << 15)
def _text_prior(text: str, examples: bool) -> float:
    """:func:`rule_prior` of a rule's text, once per distinct text (an archive repeats each)."""
    text = text.strip()
    if not text and not examples:
        return HEADING_PRIOR
    if text.endswith(":"):
        return LIST_INTRO_PRIOR
    if _DEFINES.search(text):
        return DEFINITION_PRIOR
    return 1.0


def rule_title(table: dict[str, Rule], rule: Rule) -> str:
    for anc in _titled_ancestors(rule.number):
        node = table.get(anc)
        if node is not None and node.title:
            return node.title
    return ""


@lru_cache(maxsize=1 << 14)
def _titled_ancestors(number: str) -> tuple[str, ...]:
    """The numbers above ``number`` that may carry a title (sections do not count), nearest
    first; once per distinct number (an archive repeats each in every edition)."""
    parsed = try_parse(number)
    return tuple(str(a) for a in parsed.ancestors() if not a.is_section) if parsed else ()
