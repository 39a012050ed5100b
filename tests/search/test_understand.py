"""Query understanding (frames, concepts), fast highlighting and index reuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.search import build_index, index_is_current
from kb.search.analysis import analyze_en, analyze_fr, marker
from kb.search.indexer import META_FILE
from kb.search.understand import (
    INFLECTION_WEIGHT,
    VARIANT_WEIGHT,
    Concepts,
    inflection_stems,
    word_variants,
)
from kb.search.wording import asks_tournament, asks_when, proper_names, strip_frames
from kb.text.normal import stem_en

from .conftest import small_kb


@pytest.mark.parametrize(
    ("query", "lang", "content"),
    [
        ("what happens if my library is empty", "en", "my library is empty"),
        ("how does trample work", "en", "trample"),
        ("can I respond to a land", "en", "respond to a land"),
        ("que se passe-t-il si tous les joueurs passent", "fr", "tous les joueurs passent"),
        ("comment fonctionne le piétinement", "fr", "le piétinement"),
        ("est-ce qu'un joueur reçoit la priorité", "fr", "un joueur reçoit la priorité"),
        ("レジェンド・ルールとは", "ja", "レジェンド・ルール"),
        ("タフネスが0になったクリーチャーはどうなる", "ja", "タフネスが0になったクリーチャーは"),
        ("what does it mean to exile a card", "en", "exile a card"),
        ("is there a rule about hand size", "en", "hand size"),
        ("que dit la règle sur le mulligan", "fr", "le mulligan"),
        ("死亡ってどういう意味", "ja", "死亡"),
        ("優先権について教えてください", "ja", "優先権"),
        (
            "hi, quick question: does trample work with deathtouch? thanks",
            "en",
            ", : does trample with deathtouch?",
        ),
        ("bonjour, petite question sur le piétinement svp", "fr", ", sur le piétinement"),
        ("すみません、質問です。トランプルについて", "ja", "、 。トランプル"),
    ],
)
def test_frames_are_dropped(query: str, lang: str, content: str) -> None:
    assert strip_frames(query, lang) == content


def test_a_frame_alone_and_query_syntax_are_kept() -> None:
    assert strip_frames("what happens", "en") == "what happens"
    assert strip_frames('"how does" trample', "en") == '"how does" trample'
    assert strip_frames("how does trample work", None) == "trample"


def test_concepts_are_weighed_by_specificity() -> None:
    groups = ["r:702.19", "r:702.19a", "r:702.19b", "r:702.1", "r:702.190", "g:en:x"]
    concepts = Concepts([[["trampl"], ["702.19"], 12], [["creatur"], ["302"], 2000]], groups, 6)
    assert concepts.find(["how", "trampl", "creatur"]) == [
        (("trampl",), ("702.19",), 12),
        (("creatur",), ("302",), 2000),
    ]
    assert Concepts.weight(12) == 1.0
    assert Concepts.weight(2000) < 0.2
    # The subtree of 702.19 is 702.19 and its letters, not 702.190 nor 702.1.
    assert concepts.subtree("702.19") == frozenset({0, 1, 2})


def test_index_records_concepts_from_glossary_titles_and_term_base(tmp_path: Path) -> None:
    kb = small_kb()
    build_index(kb, tmp_path)
    meta = json.loads((tmp_path / META_FILE).read_text(encoding="utf-8"))
    rows = {tuple(words): rules for words, rules, _df in meta["concepts"]}
    assert rows[("prioriti",)][0] == "117"  # the title of 117 and the term base agree
    assert "704" in rows[("state", "base", "action")]


def test_a_question_in_french_raises_the_rules_of_its_concepts(searcher) -> None:
    boosts, _defined = searcher._concept_boosts("les actions basées sur un état", "fr")
    assert boosts.get("704", 1.0) > 1.0


@pytest.mark.parametrize(
    ("lang", "text", "wanted"),
    [
        ("en", "The player's triggered abilities trigger; Priority, priorities. Ability’s", None),
        ("fr", "L'étape de nettoyage : qu'un joueur reçoive la priorité, priorités", None),
    ],
)
def test_marker_finds_what_the_analyser_finds(lang: str, text: str, wanted: None) -> None:
    analyze = analyze_en if lang == "en" else analyze_fr
    every = analyze(text)
    for keep in ({t for t, _, _ in every[::2]}, {t for t, _, _ in every}):
        assert marker(lang, keep)(text) == [s for s in every if s[0] in keep]


def test_previous_index_is_reused_when_the_knowledge_base_is_the_same(tmp_path: Path) -> None:
    kb = small_kb()
    first = build_index(kb, tmp_path / "a")
    reused = build_index(kb, tmp_path / "b", previous=tmp_path / "a")
    assert reused.get("reused") and not reused["skipped"]
    assert index_is_current(kb, tmp_path / "b")
    assert reused["bytes"] == first["bytes"]
    other = small_kb()
    other.content_hash = "changed"
    rebuilt = build_index(other, tmp_path / "c", previous=tmp_path / "a")
    assert not rebuilt.get("reused") and rebuilt["docs"] > 0
    assert index_is_current(other, tmp_path / "c")


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("when can I cast an instant", True),
        ("quand puis-je activer une capacité", True),
        ("起動型能力はいつ起動できる", True),
        ("マナ能力を起動できるタイミング", True),
        ("when does a creature die", False),
        ("quand est-ce que je pioche", False),
        # A passive ("is resolved") asks when something happens, not when one may act.
        ("スタックの一番上の呪文はいつ解決される", False),
        ("ソーサリーはいつ唱えられる", True),
    ],
)
def test_questions_asking_when_one_may_act(query: str, asks: bool) -> None:
    assert asks_when(query) is asks


@pytest.mark.parametrize(
    ("word", "tok", "lang", "variants"),
    [
        ("zero", "zero", "en", [("0", 1.0)]),
        ("deux", "deux", "fr", [("2", 1.0)]),
        ("un", "un", "fr", []),  # the French article, not a number
        ("untapped", "untap", "en", []),
        ("noncombat", "noncombat", "en", []),  # the opposite of "combat", not a form of it
        ("tapped", "tap", "en", [("untap", VARIANT_WEIGHT), ("nontap", VARIANT_WEIGHT)]),
        ("blockers", "blocker", "en", [("unblocker", 0.5), ("nonblocker", 0.5), ("block", 0.5)]),
    ],
)
def test_word_variants(word: str, tok: str, lang: str, variants: list) -> None:
    found = word_variants(word, tok, lang)
    inflections = inflection_stems(word.lower()) if lang == "en" else set()
    assert [v for v in found if v[0] not in inflections] == variants


@pytest.mark.parametrize(
    ("word", "stem"),
    [("sacrificed", "sacrific"), ("sacrificing", "sacrific"), ("tapped", "tap")],
)
def test_a_word_finds_the_stems_of_its_other_inflections(word: str, stem: str) -> None:
    # Snowball stems "sacrificed" "sacrif" but "sacrifices" "sacrific".
    assert stem in inflection_stems(word)
    if stem != stem_en(word):
        assert (stem, INFLECTION_WEIGHT) in word_variants(word, stem_en(word), "en")


def test_inflections_are_listed_in_one_order() -> None:
    # Clause order decides ties; a set's order changes with the interpreter's hash seed.
    found = [v for v, w in word_variants("sacrificed", "sacrif", "en") if w == INFLECTION_WEIGHT]
    assert found == sorted(found)


def test_a_number_word_finds_the_rule_written_with_digits(searcher) -> None:
    hits = searcher.search("zero life", lang="en").hits
    assert hits and hits[0].canonical == "704.5a"
    assert searcher.search("zero", lang="en").hits[0].canonical == "704.5a"


def test_proper_names_are_capitalised_words_inside_a_sentence() -> None:
    text = "I control Blood Artist and my opponent casts Wrath of God, does it trigger?"
    assert proper_names(text) == {"Blood", "Artist", "Wrath", "God"}
    assert proper_names("Trampel over blockers") == frozenset()  # a sentence's first word
    assert proper_names("WHAT IS TRAMPLE") == frozenset()
    assert proper_names("what is it. Deathtouch too") == frozenset()


def test_a_proper_name_is_not_corrected(searcher) -> None:
    # "Priorty" inside a sentence is a name as far as spelling goes; opening one it is a typo.
    assert "Priorty" not in searcher._compile("about Priorty", ("en",), None).corrections
    assert searcher._compile("Priorty after a spell", ("en",), None).corrections


def test_a_term_base_name_is_not_corrected_to_a_close_word(tmp_path: Path) -> None:
    from kb.knowledge.model import Term
    from kb.search import Searcher

    from .conftest import FR, _rule

    kb = small_kb()
    kb.terms = [
        *kb.terms,
        Term("defender", ["defender"], ["défenseur"], ["防衛"], ["702.3"]),
    ]
    rule = _rule(FR, "fr", "116.9", "La défenseuse reçoit la priorité.", "117.9")
    kb.rules[FR][rule.number] = rule
    build_index(kb, tmp_path)
    with Searcher(tmp_path, kb) as searcher:
        compiled = searcher._compile("une créature avec défenseur", ("en", "fr", "ja"), None)
        # Before: "défenseur" (not in the French texts) became "défenseuse", and the question
        # lost its concept: defender's rules were no longer raised.
        assert "défenseur" not in compiled.corrections
        assert compiled.boosts.get("702.3", 1.0) > 1.0


def test_the_opening_rule_of_a_concept() -> None:
    groups = ["r:702.19", "r:702.19a", "r:702.19b", "r:724", "r:724.1", "r:724.10", "r:702.19a"]
    concepts = Concepts([], groups, 7)
    assert concepts.opening("702.19") == frozenset({1, 6})  # every language's text of 702.19a
    assert concepts.opening("724") == frozenset({4})  # not 724.10
    assert concepts.opening("999") == frozenset()


def test_the_opening_rule_of_a_named_concept_is_raised() -> None:
    from kb.search.compiled import Compiled
    from kb.search.ranking import OPENING, OPENING_DEFINED, Ranker

    groups = ["r:702.19", "r:702.19a", "r:702.19b", "r:302", "r:302.1"]
    ranker = Ranker(None, ["en"] * 5, ["subrule"] * 5, Concepts([], groups, 5), frozenset())  # type: ignore[arg-type]
    scores = dict.fromkeys(range(5), 1.0)
    ranker._open(scores, Compiled(None, boosts={"702.19": 2.5, "302": 1.1}, defined=("702.19",)))
    # Only the specific concept's opening rule: "creature" (302, barely raised) opens nothing.
    assert scores == {0: 1.0, 1: OPENING_DEFINED, 2: 1.0, 3: 1.0, 4: 1.0}
    scores = dict.fromkeys(range(5), 1.0)
    ranker._open(scores, Compiled(None, boosts={"702.19": 2.5}))
    assert scores[1] == OPENING


def test_words_run_together_are_split(searcher) -> None:
    result = searcher.search("manaability", lang="en")
    assert [h.canonical for h in result.hits if h.kind != "glossary"][:1] == ["605.3a"]
    assert result.suggestion == "mana ability"


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("raccourcis de tournoi", True),
        ("tournament shortcuts", True),
        ("トーナメントでのショートカット", True),
        ("passer la priorité", False),
        ("judgement day", False),
    ],
)
def test_questions_about_tournament_rules(query: str, asks: bool) -> None:
    assert asks_tournament(query) is asks


def test_a_question_about_tournaments_raises_the_tournament_rules(searcher) -> None:
    def share(query: str) -> float:
        """The tournament rule's score against the best rule's."""
        hits = searcher.search(query).hits
        rule = max(h.score for h in hits if h.kind in ("rule", "subrule"))
        return next(h.score for h in hits if h.kind == "tournament") / rule

    # "tournoi" is in no text here: what it changes is the weight of the tournament rules.
    assert share("passer la priorité en tournoi") > 1.3 * share("passer la priorité")


def test_a_game_question_lowers_the_tournament_rules(searcher, monkeypatch) -> None:
    from kb.search import ranking

    def share() -> float:
        searcher.clear_caches()
        hits = searcher.search("passer la priorité").hits
        rule = max(h.score for h in hits if h.kind in ("rule", "subrule"))
        return next(h.score for h in hits if h.kind == "tournament") / rule

    lowered = share()
    monkeypatch.setattr(ranking, "TOURNAMENT_UNWANTED", 1.0)
    assert lowered < 0.8 * share()


def test_a_word_of_another_language_and_a_missing_apostrophe_are_no_typos(
    tmp_path: Path,
) -> None:
    from kb.search import Searcher

    from .conftest import EN_NEW, FR, _rule

    kb = small_kb()
    for rule in (
        _rule(EN_NEW, "en", "603.3b", "The player puts them on the stack in any order.", "603.3b"),
        _rule(EN_NEW, "en", "601.1", "Cast a spell; cast it often; cast.", "601.1"),
        _rule(FR, "fr", "116.9", "Dans l'ordre de son choix.", "117.9"),
    ):
        kb.rules[rule.edition][rule.number] = rule
    build_index(kb, tmp_path)
    with Searcher(tmp_path, kb) as searcher:
        scope = ("en", "fr", "ja")
        # Before: "order" became the French "ordre", "cant" the commoner "cast".
        assert "order" not in searcher._compile("triggers order", scope, None).corrections
        fixed = searcher._compile("players cant respond", scope, None).corrections
        assert fixed["cant"] == "can't"


def test_an_english_sentence_is_searched_in_english_alone() -> None:
    from kb.search.wording import searched_languages

    everything = ("en", "fr", "ja")
    assert searched_languages("en", everything) == ("en",)
    # A bare term, a Japanese question, or a search filtered to French: every field as asked.
    assert searched_languages(None, everything) == everything
    assert searched_languages("en", ("fr",)) == ("fr",)
    assert searched_languages("ja", everything) == everything


def test_a_french_question_is_searched_in_french_and_english() -> None:
    from kb.search.wording import searched_languages

    # Its reader reads French and the full English rules; the Japanese quotes only ever
    # matched its translated names.
    assert searched_languages("fr", ("en", "fr", "ja")) == ("en", "fr")
    assert searched_languages("fr", ("fr", "ja")) == ("fr", "ja")


def test_an_english_question_finds_no_quote_of_another_language(searcher) -> None:
    question = "when does the active player receive priority"
    for prefer in (None, "fr"):
        hits = searcher.search(question, limit=50, prefer_lang=prefer).hits
        assert hits and {h.lang for h in hits} == {"en"}
    # A bare term still finds the quotes of every language.
    assert {"fr", "ja"} <= {h.lang for h in searcher.search("priority", limit=50).hits}


def test_an_english_question_is_about_its_most_specific_concept() -> None:
    from types import SimpleNamespace

    from kb.search.compiler import CONCEPT_BOOST, QueryCompiler

    rows = [[["trampl"], ["702.19"], 12], [["damag"], ["120"], 400]]
    stub = SimpleNamespace(
        _terms=lambda text, lang: text.split(),
        _concepts=Concepts(rows, ["r:702.19", "r:120"], 2),
        _term_names=SimpleNamespace(translate=lambda *a, **k: []),
    )
    alone, _ = QueryCompiler.concept_boosts(stub, "damag", "en")  # type: ignore[arg-type]
    both, _ = QueryCompiler.concept_boosts(stub, "trampl damag", "en")  # type: ignore[arg-type]
    assert both["702.19"] == CONCEPT_BOOST
    # "damage" beside "trample" weighs less than "damage" asked about alone.
    assert 1.0 < both.get("120", 1.0) < alone["120"]


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("I control his next turn and he gets an extra turn. Do I control it?", 11),
        ("First sentence here. Second one! And the question?", 3),
        ("Can I untap an untapped creature? Or tap an already tapped creature?", 0),
        ("one sentence only?", 0),
        ("tapped. -creature", 0),  # query syntax: no sentences read
    ],
)
def test_the_last_sentence_of_a_question(text: str, start: int) -> None:
    from kb.search.query import parse
    from kb.search.wording import final_sentence as _final_sentence

    tree = parse(text).tree
    assert tree is not None
    assert _final_sentence(text, tree) == start


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab ?.!。,-\"'", max_size=24))
def test_any_text_has_a_last_sentence_within_its_words(text: str) -> None:
    from kb.search.query import parse
    from kb.search.wording import final_sentence as _final_sentence

    tree = parse(text).tree
    if tree is not None:
        assert 0 <= _final_sentence(text, tree) < max(1, len(text.split()))


def test_the_story_before_the_question_names_concepts_that_weigh_less(searcher) -> None:
    from kb.search.compiler import CONCEPT_BOOST, SETUP

    told = 1.0 + (CONCEPT_BOOST - 1.0) * SETUP
    asked = searcher._compile("I hold priority. Can I take a special action?", ("en",), None)
    assert asked.boosts["116"] == CONCEPT_BOOST and asked.boosts["117"] == told
    assert 1.0 < told < CONCEPT_BOOST
    swapped = searcher._compile("I take a special action. Do I receive priority?", ("en",), None)
    assert swapped.boosts["117"] == CONCEPT_BOOST and swapped.boosts["116"] == told
    # One sentence: both concepts as named.
    both = searcher._compile("special action with priority", ("en",), None)
    assert both.boosts["116"] == both.boosts["117"] == CONCEPT_BOOST
