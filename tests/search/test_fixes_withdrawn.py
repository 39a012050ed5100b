"""A glossary entry or rule that the newest full edition of its language no longer has is
history: default searches still find it, below every current text of similar match, marked
withdrawn with the last edition having it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.knowledge.model import Edition, GlossaryEntry, KnowledgeBase, Rule
from kb.search import Searcher, build_index
from kb.search.hits import EditionSets
from kb.search.votes import withdrawn_docs
from tests.search.conftest import EN_NEW, EN_OLD, small_kb


def _add(kb: KnowledgeBase, rule: Rule) -> None:
    kb.rules[rule.edition][rule.number] = rule
    if rule.canonical:
        kb.concordance.setdefault(rule.canonical, {})[rule.edition] = rule.number


def history_kb() -> KnowledgeBase:
    kb = small_kb()
    kb.glossary[EN_OLD]["summoning sickness"] = GlossaryEntry(
        EN_OLD,
        "en",
        "summoning sickness",
        "Summoning Sickness",
        "In earlier versions of the rules, the term summoning sickness described a creature's "
        "inability to attack.",
    )
    kb.glossary[EN_NEW]["summoning sickness rule"] = GlossaryEntry(
        EN_NEW,
        "en",
        "summoning sickness rule",
        "Summoning Sickness Rule",
        "Informal term for a creature's inability to attack unless it has been under its "
        "controller's control since the turn began. See rule 302.6.",
    )
    _add(
        kb,
        Rule(
            EN_NEW,
            "en",
            "302.6",
            "subrule",
            "A creature can't attack unless it has been under its controller's control "
            "continuously since their most recent turn began. This rule is informally called "
            "the summoning sickness rule.",
            canonical="302.6",
        ),
    )
    # A rule of the old edition whose number maps to no rule of the newest one.
    _add(
        kb,
        Rule(
            EN_OLD,
            "en",
            "500.9",
            "subrule",
            "Mana burn: unused mana causes loss of life.",
            canonical="500.9",
        ),
    )
    _add(
        kb,
        Rule(
            EN_NEW,
            "en",
            "106.4",
            "subrule",
            "Unused mana empties from each player's mana pool; mana burn no longer happens.",
            canonical="106.4",
        ),
    )
    return kb


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    kb = history_kb()
    path: Path = tmp_path_factory.mktemp("withdrawn")
    build_index(kb, path)
    with Searcher(path, kb) as s:
        yield s


def _keys(hits: list) -> list[tuple[str, str]]:
    return [(h.kind, h.key) for h in hits]


def test_withdrawn_glossary_entry_ranks_below_current_texts(history: Searcher) -> None:
    result = history.search("summoning sickness", limit=20)
    keys = _keys(result.hits)
    old = keys.index(("glossary", "summoning sickness"))
    assert keys.index(("glossary", "summoning sickness rule")) < old
    assert keys.index(("subrule", "302.6")) < old
    by_key = {(h.kind, h.key): h for h in result.hits}
    withdrawn = by_key[("glossary", "summoning sickness")]
    assert withdrawn.withdrawn and withdrawn.edition == EN_OLD
    assert withdrawn.to_json()["withdrawn"] is True
    assert not by_key[("glossary", "summoning sickness rule")].withdrawn
    assert not by_key[("subrule", "302.6")].withdrawn


def test_withdrawn_rule_ranks_below_current_rule(history: Searcher) -> None:
    keys = _keys(history.search("mana burn", limit=20).hits)
    assert keys.index(("subrule", "106.4")) < keys.index(("subrule", "500.9"))
    hit = next(h for h in history.search("mana burn", limit=20).hits if h.key == "500.9")
    assert hit.withdrawn and hit.edition == EN_OLD


def test_current_texts_and_partial_quotes_are_not_withdrawn(history: Searcher) -> None:
    for query, lang in (("priority", None), ("priorité", "fr"), ("優先権", "ja")):
        hits = history.search(query, lang=lang, limit=50).hits
        assert hits and not any(h.withdrawn for h in hits), query


def test_an_edition_search_shows_its_own_texts_unmarked(history: Searcher) -> None:
    hits = history.search("summoning sickness", edition=EN_OLD, limit=20).hits
    assert ("glossary", "summoning sickness") in _keys(hits)
    assert not any(h.withdrawn for h in hits)


def test_withdrawn_docs_names_only_texts_missing_from_the_newest_full_edition() -> None:
    kb = history_kb()
    refs = [
        "g|en-2016-11-11|x",
        "g|en-2025-11-14|y",
        "r|en-2016-11-11|500.9",
        "r|fr-2011-02-04|1",
        "c|c1",
    ]
    langs = ["en", "en", "en", "fr", "fr"]
    editions = [[r.split("|")[1]] if not r.startswith("c|") else [] for r in refs]
    sets = EditionSets(kb, editions)
    assert withdrawn_docs(kb, refs, langs, len(refs), sets) == {0, 2}
    assert withdrawn_docs(kb, refs, langs, 1, sets) == {0}


def test_a_text_of_the_newest_full_edition_quoted_later_is_not_withdrawn() -> None:
    # Its reference names the newest edition having it, here a later partial quote: what
    # counts is whether the newest full edition has it too.
    kb = history_kb()
    quote = Edition(
        id="en-2026-01-01", lang="en", kind="partial", date="2026-01-01", numbering=None, sources=[]
    )
    kb.editions[quote.id] = quote
    refs = ["r|en-2026-01-01|106.4", "r|en-2026-01-01|500.9"]
    sets = EditionSets(kb, [[EN_NEW, quote.id], [EN_OLD, quote.id]])
    assert withdrawn_docs(kb, refs, ["en", "en"], 2, sets) == {1}
