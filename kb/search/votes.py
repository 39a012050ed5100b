"""Documents that vote for the rules they cite: the executable examples and the questions
players ask ("Players ask", ``corpus/asks``).

A question is a player's wording of something a rule answers: "can I respond to a spell with a
spell?" shares few words with 117.3c but many with the questions citing it. Each question is a
document of kind ``ask`` (never a hit): a search scores the questions with the rest, reranks the
best of them as it reranks rules (coverage of the query's words, proximity), and each of the
:data:`ASK_VOTERS` best adds :data:`ASK_VOTE` of its score to the rules it cites, in the rules'
English text (a French or Japanese question reaches the English rules it cites that way).
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.knowledge.model import LANGS, KnowledgeBase
from kb.search.hits import EditionSets

#: How many of the best-matching questions vote, and the share of its (reranked) score each
#: adds to the rules it cites (divided by the square root of their number). Tuning half MRR
#: (tests/bench/tune_asks.py): no vote 0.601, vote 0.25 / 0.5 / 1.0 / 2.0 with 8 voters 0.643 /
#: 0.657 / 0.671 / 0.658; 3, 8, 20 voters at 1.0: 0.654, 0.671, 0.669.
ASK_VOTERS = 8
ASK_VOTE = 1.0
#: Each vote is also scaled by (the question's score / the best voting question's) ** ASK_SHARP:
#: the nearest question speaks loudest, and a question matching half as well says much less.
#: Tuning half (without cards) 0.747 at 0, 0.749 at 1, 0.742 at 2; the questions as queries held
#: out by rule (1,200 of them): en 0.506 / 0.521 / 0.529, fr 0.343 / 0.351 / 0.353, ja 0.342 /
#: 0.362 / 0.370 (raising ASK_VOTE or ASK_VOTERS with it lost on both).
ASK_SHARP = 1.0
#: How many of the matching questions are reranked before the vote (the best by BM25F).
ASK_DEPTH = 40


def current_rule_docs(groups: Sequence[str], langs: Sequence[str], stop: int) -> dict[str, int]:
    """Canonical number -> its current English document (rules only)."""
    out: dict[str, int] = {}
    for doc in range(stop):
        group = groups[doc]
        if group.startswith("r:") and langs[doc] == "en":
            out[group[2:]] = doc
    return out


#: The documents that vote, by kind: the group prefix of their documents.
VOTER_PREFIX = {"example": "x:", "ask": "a:"}


def citations(
    kb: KnowledgeBase, groups: list[str], stop: int, english: dict[str, int], kind: str
) -> dict[int, tuple[int, ...]]:
    """Each current voting document of ``kind`` ("example": group ``x:<id>``, in any language
    it is told in; "ask": a question, group ``a:<id>``) -> the current English documents of the
    rules it cites (``english``: :func:`current_rule_docs`; tournament rules and unknown numbers
    left out). One function for both: an example's ``rules:`` line and a question's citations
    are the same kind of evidence."""
    if kind not in VOTER_PREFIX:
        raise ValueError(f"unknown voter kind {kind!r}: one of {sorted(VOTER_PREFIX)}")
    prefix = VOTER_PREFIX[kind]
    cited = kb.examples if kind == "example" else kb.asks
    rules_of = {item.id: item.rules for item in cited}
    out: dict[int, tuple[int, ...]] = {}
    for doc in range(stop):
        group = groups[doc]
        if group.startswith(prefix):
            rules = tuple(
                dict.fromkeys(english[r] for r in rules_of.get(group[2:], ()) if r in english)
            )
            if rules:
                out[doc] = rules
    return out


def split_asks(
    scores: dict[int, float], asks: frozenset[int]
) -> tuple[dict[int, float], dict[int, float]]:
    """``scores`` without the questions' documents (they are never hits), and their scores.
    ``scores`` itself is left alone: the postings keep it for the next query sharing a word."""
    if not asks or not scores:
        return scores, {}
    found = scores.keys() & asks if len(asks) > len(scores) else asks.intersection(scores)
    if not found:
        return scores, {}
    rest = dict(scores)  # copied in C, then the few questions taken out
    return rest, {d: rest.pop(d) for d in found}


def ask_votes(
    ranked: list[tuple[float, int]],
    cites: dict[int, tuple[int, ...]],
    hidden: frozenset[int],
    counts: dict[int, float] | None = None,
) -> dict[int, float]:
    """Rule document -> what the best :data:`ASK_VOTERS` questions of ``ranked`` (reranked,
    best first) add to it: :data:`ASK_VOTE` of each one's score, scaled by its share of the
    best one's (:data:`ASK_SHARP`) and shared among the rules it cites. ``hidden``: questions that may not vote (an evaluation's held-out ones); ``counts``,
    when given, gets how many questions voted for each rule."""
    add: dict[int, float] = {}
    voters = 0
    top = 0.0
    for score, doc in ranked:
        rules = cites.get(doc)
        if rules is None or doc in hidden:
            continue
        top = top or score or 1.0
        vote = ASK_VOTE * score * (score / top) ** ASK_SHARP / len(rules) ** 0.5
        for rule in rules:
            add[rule] = add.get(rule, 0.0) + vote
            if counts is not None:
                counts[rule] = counts.get(rule, 0.0) + 1.0
        voters += 1
        if voters == ASK_VOTERS:
            break
    return add


def withdrawn_docs(
    kb: KnowledgeBase, refs: list[str], langs: list[str], stop: int, editions: EditionSets
) -> frozenset[int]:
    """The current documents (below ``stop``) of glossary entries and rules that the newest
    full edition of their language no longer has (its bit is not in the document's set of
    ``editions``). A partial edition (a quote) proves nothing by leaving a text out."""
    newest: dict[tuple[str, str], int] = {}
    for code in LANGS:
        full = kb.editions_of(code, full_only=True)
        glossaries = [ed for ed in full if kb.glossary.get(ed.id)]
        for kind, eds in (("r", full), ("g", glossaries)):
            if eds and eds[-1].id in editions.bit:
                newest[(code, kind)] = editions.bit[eds[-1].id]
    out = set()
    masks = editions.docs
    for doc in range(stop):
        bit = newest.get((langs[doc], refs[doc].partition("|")[0]))
        if bit is not None and not masks[doc] & bit:
            out.add(doc)
    return frozenset(out)
