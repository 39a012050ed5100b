"""Ranking: the in-memory postings (phrases, operators, filters) and the rerank signals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from whoosh import query as wq

from kb.search import Searcher, build_index, postings
from kb.search.postings import Coord, Evaluation, Postings, build
from kb.search.ranking import _top

from .conftest import small_kb


@pytest.fixture()
def tiny(tmp_path: Path) -> Postings:
    """Four current documents and one old one, body field only."""
    rows = [
        (0, "body_en", ["mana", "abil", "stack"], 3),
        (1, "body_en", ["stack", "mana", "pool"], 3),
        (2, "body_en", ["mana", "mana", "mana", "cost", "pay"], 5),
        (3, "body_en", ["abil", "resolv", "mana", "abil"], 2),  # the last two: an example
        (4, "body_en", ["mana", "abil", "stack"], 3),
    ]
    path = tmp_path / "p.bin"
    path.write_bytes(build(rows, 5, 4, [1.0] * 5))
    return Postings(path)


def test_phrase_needs_the_words_in_order(tiny: Postings) -> None:
    ev = Evaluation()
    assert set(tiny.evaluate(wq.Phrase("body_en", ["mana", "abil"]), False, ev)) == {0, 3}
    assert set(tiny.evaluate(wq.Phrase("body_en", ["abil", "mana"]), False, ev)) == set()
    assert set(tiny.evaluate(wq.Phrase("body_en", ["mana", "abil"]), True, ev)) == {0, 3, 4}


def test_operators(tiny: Postings) -> None:
    mana, stack = wq.Term("body_en", "mana"), wq.Term("body_en", "stack")
    ev = Evaluation()
    assert set(tiny.evaluate(wq.And([mana, stack]), False, ev)) == {0, 1}
    assert set(tiny.evaluate(wq.AndNot(mana, stack), False, ev)) == {2, 3}
    assert set(tiny.evaluate(wq.Or([wq.Term("body_en", "pay"), stack]), False, ev)) == {0, 1, 2}
    maybe = tiny.evaluate(wq.AndMaybe(stack, mana), False, ev)
    assert set(maybe) == {0, 1} and maybe[0] > tiny.term("body_en", "stack", False)[0]
    assert tiny.evaluate(wq.Term("body_en", "nothing"), True, ev) == {}


def test_coord_remembers_its_word_groups(tiny: Postings) -> None:
    ev = Evaluation()
    q = Coord([wq.Term("body_en", "mana"), wq.Term("body_en", "stack")])
    scores = tiny.evaluate(q, False, ev)
    assert len(ev.groups) == 1 and len(ev.groups[0]) == 2
    assert set(scores) == {0, 1, 2, 3}


def test_terms_in_examples_weigh_less(tiny: Postings) -> None:
    weights = tiny.term("body_en", "mana", False)
    # Document 3 has "mana" once, in its example; document 0 once, in its own text.
    assert weights[3] < weights[0]


def test_old_documents_only_when_asked(tiny: Postings) -> None:
    assert 4 not in tiny.term("body_en", "stack", False)
    assert 4 in tiny.term("body_en", "stack", True)
    assert tiny.frequency("body_en", "stack") == 3


def test_missing_postings_is_a_clear_error(tmp_path: Path) -> None:
    kb = small_kb()
    build_index(kb, tmp_path)
    (tmp_path / postings.FILE).unlink()
    with pytest.raises(FileNotFoundError, match=re.escape(postings.FILE)):
        Searcher(tmp_path, kb)


def test_damaged_postings_is_a_clear_error(tmp_path: Path) -> None:
    # An older build's marshal file, or any other bytes, under the postings' name.
    kb = small_kb()
    build_index(kb, tmp_path)
    (tmp_path / postings.FILE).write_bytes(b"\xfb\x04not a database" * 100)
    with pytest.raises(FileNotFoundError, match="unreadable"):
        Searcher(tmp_path, kb)


def test_a_question_is_not_a_glossary_lookup(searcher) -> None:
    # "get priority" is "receives priority" in the rules; the glossary entry is not pinned.
    hits = searcher.search("when do I get priority", lang="en").hits
    assert hits[0].kind != "glossary"
    assert hits[0].number == "117.3b"


def test_more_of_the_words_ranks_higher(searcher) -> None:
    # 117.5 has "state-based actions" and "priority"; other rules have only one of them.
    hits = searcher.search("priority state-based actions", lang="en").hits
    rules = [h.number for h in hits if h.kind != "glossary"]
    assert rules[0] == "117.5"


def test_old_documents_are_read_from_disk_on_demand(tiny: Postings) -> None:
    # Only the current documents are in memory after opening; a search in an edition reads the
    # rows of its own words, and they are dropped once it is answered.
    assert tiny.sequence("body_en", 1) == ("stack", "mana", "pool")
    assert not tiny._old and not tiny._old_seq
    assert tiny.knows("body_en", "pool") and not tiny.knows("body_en", "nothing")
    assert tiny.sequence("body_en", 4) == ("mana", "abil", "stack")
    assert tiny.term("body_en", "abil", True)[4] > 0
    assert tiny._old and tiny._old_seq
    tiny.forget()
    assert not tiny._old and not tiny._old_seq
    assert tiny.sequence("body_en", 4) == ("mana", "abil", "stack")


def test_top_documents_keep_the_order_of_ties() -> None:
    # Large score tables take the threshold path; both paths give what a full sort gives.
    for size in (50, 5000):
        scores = {(d * 7919) % 100_003: float(d % 13) for d in range(size)}
        for depth in (1, 40, size + 5):
            assert (
                _top(scores, depth) == sorted(scores, key=scores.__getitem__, reverse=True)[:depth]
            )


def test_a_rules_texts_in_other_languages_add_up_and_commentary_yields() -> None:
    from kb.search.ranking import COMMENTARY_DEMOTION, LANG_FUSION, Ranker
    from kb.search.understand import Concepts

    groups = ["r:117.3b", "r:117.3b", "r:117.5", "c:117"]
    langs = ["en", "fr", "en", "fr"]
    kinds = ["subrule", "subrule", "subrule", "commentary"]
    ranker = Ranker(None, langs, kinds, Concepts([], groups, 4), frozenset())  # type: ignore[arg-type]
    scored = [(10.0, 2), (9.0, 3), (8.0, 0), (6.0, 1)]
    out = ranker._question_priors(scored, examples_wanted=False)
    # 117.3b matched in English and in French: it leads the rule that matched in one language.
    assert out[0] == (8.0 + LANG_FUSION * 6.0, 0)
    assert out[1] == (10.0, 2)
    assert (9.0 * COMMENTARY_DEMOTION, 3) in out
    assert (6.0, 1) in out  # the other text is not counted twice


def test_equal_scores_are_ranked_in_the_rules_order_not_the_documents() -> None:
    from kb.search.ranking import Ranker
    from kb.search.understand import Concepts, rule_ranks

    # Documents out of the rules' order: a glossary entry, 702.10a, 702.9a in English and in
    # French, an old text with no canonical number, section 7.
    groups = ["g:dies", "r:702.10a", "r:702.9a", "r:702.9a", "r:en:2020:702.9a", "r:7"]
    assert rule_ranks(groups) == [4, 3, 1, 2, 5, 0]
    langs = ["en", "en", "en", "fr", "en", "en"]
    ranker = Ranker(None, langs, ["subrule"] * 6, Concepts([], groups, 6), frozenset())  # type: ignore[arg-type]
    scored = [(1.0, d) for d in (0, 1, 3, 4, 5)]  # 702.9a's French text alone
    out = ranker._question_priors(scored, examples_wanted=False)
    assert [d for _s, d in out] == [5, 3, 1, 0, 4]


class _Terms:
    """Postings stand-in: the weight of each (field, word) per document."""

    def __init__(self, rows: dict[tuple[str, str], dict[int, float]]) -> None:
        self.rows = rows

    def term(self, name: str, word: str, everything: bool) -> dict[int, float]:
        return self.rows.get((name, word), {})


def _family_ranker(rows: dict[tuple[str, str], dict[int, float]], langs: list[str]):
    from kb.search.ranking import Ranker
    from kb.search.understand import Concepts

    groups = ["r:702.15a", "r:702.15b", "r:702.15e", "r:120.3f", "r:702.15"][: len(langs)]
    concepts = Concepts([[["lifelink"], ["702.15"], 6]], groups, len(groups))
    kinds = ["subrule"] * len(groups)
    return Ranker(_Terms(rows), langs, kinds, concepts, frozenset())  # type: ignore[arg-type]


def test_a_concepts_name_does_not_pick_among_its_family() -> None:
    from kb.search.compiled import Compiled
    from kb.search.ranking import SIBLING_DECAY

    # 702.15e says "lifelink" three times, 702.15b once: the rest of the question decides.
    ranker = _family_ranker(
        {("body_en", "lifelink"): {1: 1.0, 2: 3.0}, ("body_en", "damag"): {1: 2.0, 2: 1.0}},
        ["en", "en", "en", "en"],
    )
    compiled = Compiled(None, marks={"en": {"lifelink", "damag"}}, src="en")
    compiled.boosts = {"702.15": 2.5}
    scores = {1: 2.5 * 3.0, 2: 2.5 * 4.0, 3: 1.0}
    ranker._level(scores, compiled)
    assert scores[1] == pytest.approx((2.5 * 3.0 + 2.5 * 2.0) * SIBLING_DECAY)
    assert scores[2] == pytest.approx(2.5 * 4.0 * SIBLING_DECAY**4)
    assert scores[1] > scores[2]
    assert scores[3] == 1.0  # not of the family


def test_family_levelling_leaves_french_questions_alone() -> None:
    from kb.search.compiled import Compiled

    ranker = _family_ranker({("body_en", "lifelink"): {1: 1.0, 2: 3.0}}, ["en", "en", "en"])
    compiled = Compiled(None, marks={"en": {"lifelink"}}, src="fr")
    compiled.boosts = {"702.15": 2.5}
    scores = {1: 2.5, 2: 7.5}
    ranker._level(scores, compiled)
    assert scores == {1: 2.5, 2: 7.5}


def test_a_concepts_own_title_is_not_its_familys_measure() -> None:
    from kb.search.compiled import Compiled

    # "Lifelink" (702.15, a bare title) matches the concept's word in its title: its siblings
    # are not raised to it, and it is not raised.
    ranker = _family_ranker(
        {("title_en", "lifelink"): {4: 4.0}, ("body_en", "lifelink"): {1: 1.0, 2: 1.0}},
        ["en", "en", "en", "en", "en"],
    )
    compiled = Compiled(None, marks={"en": {"lifelink"}}, src="en")
    compiled.boosts = {"702.15": 2.5}
    scores = {1: 2.5, 2: 2.5, 4: 10.0}
    ranker._level(scores, compiled)
    assert scores[4] == 10.0
    assert scores[1] < 3.0 and scores[2] < 3.0


def test_translated_names_do_not_outrank_an_english_questions_own_words(searcher) -> None:
    # "zorblax" is in no text: the English rule has one of the question's two words, the
    # Japanese quote only the translation of "special action" (特別な処理). The English text
    # answers an English question; the translation must not lead it.
    hits = [h for h in searcher.search("zorblax special action").hits if h.kind != "glossary"]
    assert hits and hits[0].lang == "en"


def test_the_best_examples_raise_the_rules_they_cite() -> None:
    from kb.search.ranking import EXAMPLE_DEMOTION, EXAMPLE_VOTE, EXAMPLE_VOTERS, Ranker
    from kb.search.understand import Concepts

    # Docs 0-2: rules; 3..: examples citing rule 1 (and doc 3 also rule 2, which the
    # question's words did not match at all).
    voters = EXAMPLE_VOTERS + 1
    groups = ["r:111.7", "r:111.8", "r:704.5d"] + [f"x:ex{i}" for i in range(voters)]
    langs = ["en"] * len(groups)
    kinds = ["subrule"] * 3 + ["example"] * voters
    cites = {3 + i: (1,) for i in range(voters)}
    cites[3] = (1, 2)
    ranker = Ranker(
        None,  # type: ignore[arg-type]
        langs,
        kinds,
        Concepts([], groups, len(groups)),
        frozenset(),
        cites=cites,
    )
    scored = [(10.0, 0), (4.0, 1)] + [(1.0 - 0.1 * i, 3 + i) for i in range(voters)]
    out = dict((d, s) for s, d in ranker._cited(scored))
    votes = [EXAMPLE_VOTE * (1.0 - 0.1 * i) / EXAMPLE_DEMOTION for i in range(EXAMPLE_VOTERS)]
    assert out[1] == pytest.approx(4.0 + sum(votes))  # the last example has no vote
    assert out[2] == pytest.approx(votes[0])  # a cited rule the words missed joins the list
    assert out[0] == 10.0


def test_example_citations_map_examples_to_their_rules_english_texts() -> None:
    from kb.knowledge.model import ExampleInfo
    from kb.search.votes import citations, current_rule_docs

    kb = small_kb()
    kb.examples = [
        ExampleInfo("ex1", "Sba", "ex1.md", ["117.5", "MTR 4.2", "999.9"], "", True),
        ExampleInfo("ex2", "None", "ex2.md", ["999.9"], "", True),
    ]
    groups = ["r:117.5", "r:117.5", "x:ex1", "x:ex2", "r:117.3b"]
    langs = ["fr", "en", "en", "en", "en"]
    english = current_rule_docs(groups, langs, len(groups))
    assert citations(kb, groups, len(groups), english, "example") == {2: (1,)}


def test_citations_of_questions_and_an_unknown_kind() -> None:
    from kb.knowledge.asks import Ask
    from kb.search.votes import citations, current_rule_docs

    kb = small_kb()
    kb.asks = [Ask("en/117#1", "en", "who acts first?", ["117.3b", "117.5", "999.9"])]
    groups = ["r:117.5", "a:en/117#1", "r:117.3b", "x:ex1"]
    langs = ["en", "en", "en", "en"]
    english = current_rule_docs(groups, langs, len(groups))
    assert citations(kb, groups, len(groups), english, "ask") == {1: (2, 0)}
    with pytest.raises(ValueError, match="unknown voter kind 'card'"):
        citations(kb, groups, len(groups), english, "card")


class _Sequences:
    """Postings stand-in: each document's analysed English text."""

    def __init__(self, seqs: dict[int, tuple[str, ...]]) -> None:
        self.seqs = seqs

    def sequence(self, name: str, doc: int) -> tuple[str, ...] | None:
        return self.seqs.get(doc) if name == "body_en" else None


def test_a_definition_asked_for_is_raised_once_and_only_for_its_subject() -> None:
    from kb.search.compiled import Compiled
    from kb.search.ranking import DEFINITION_ASKED, SUBJECT_WORDS, Ranker
    from kb.search.understand import Concepts

    assert SUBJECT_WORDS > 0
    groups = ["r:603.6a", "r:603.6d", "r:603.2"]
    seqs = {
        0: ("enter", "battlefield", "trigger", "abil", "perman"),
        # "Some permanents have text that reads ... enters": a definition of something else.
        1: ("some", "perman", "text", "read", "perman", "enter", "perman", "enter"),
        2: ("trigger", "abil", "trigger", "event"),
    }
    concepts = Concepts(
        [[["enter", "battlefield"], ["603.6a", "603.6d"], 10], [["trigger"], ["603"], 30]],
        groups,
        3,
    )
    langs, kinds = ["en"] * 3, ["subrule"] * 3
    ranker = Ranker(_Sequences(seqs), langs, kinds, concepts, frozenset({0, 1, 2}))  # type: ignore[arg-type]
    scores = dict.fromkeys(range(3), 1.0)
    # 603.6a is in the subtrees of both "603" and "603.6a": raised once, not squared.
    ranker._define(scores, Compiled(None, defined=("603", "603.6a", "603.6d")))
    assert scores == {0: DEFINITION_ASKED, 1: 1.0, 2: DEFINITION_ASKED}


def test_proximity_counts_a_pair_in_the_other_order_in_part(monkeypatch) -> None:
    from kb.search import ranking
    from kb.search.ranking import _proximity

    seq = ("damag", "dealt", "sourc", "lifelink")
    monkeypatch.setattr(ranking, "REVERSED", 0.0)
    assert _proximity(seq, [("lifelink", "damag")], 3) == 0.0
    monkeypatch.setattr(ranking, "REVERSED", 0.5)
    assert _proximity(seq, [("lifelink", "damag")], 3) == 0.5
    assert _proximity(seq, [("damag", "lifelink")], 3) == 1.0
    assert _proximity(seq, [("lifelink", "damag")], 2) == 0.0  # not within the window


def test_the_nearest_question_votes_loudest() -> None:
    # A question matching half as well as the best one adds a quarter of the best one's vote
    # (its score, times its share of the best score: kb.search.votes.ASK_SHARP).
    from kb.search.votes import ASK_SHARP, ASK_VOTE, ask_votes

    assert ASK_SHARP == 1.0
    cites = {10: (1,), 11: (2,), 12: (3, 4)}
    add = ask_votes([(8.0, 10), (4.0, 11), (8.0, 12), (7.0, 99)], cites, frozenset({12}))
    assert add == {1: pytest.approx(8.0 * ASK_VOTE), 2: pytest.approx(2.0 * ASK_VOTE)}
