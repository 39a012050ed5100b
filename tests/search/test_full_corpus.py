"""Search over the full build (embedded corpus + shared editions): cases only real data shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.build import load
from kb.search import Searcher


@pytest.fixture(scope="module")
def full_searcher(full_instance: Path):
    searcher = Searcher(full_instance / "index", load(full_instance))
    yield searcher
    searcher.close()


def test_stop_words_name_no_glossary_entry(full_searcher) -> None:
    # "If" and "You" are glossary entries made of stop words: a query of stop words is not them.
    result = full_searcher.search("the of and", lang="en")
    assert result.total == 0 and not result.hits and result.message


def test_cross_language_priority_finds_rule_117(full_searcher) -> None:
    result = full_searcher.search("優先権", lang="en")
    assert any((h.canonical or "").startswith("117") for h in result.hits[:5])


def test_old_number_with_edition_says_what_it_is_now(full_searcher) -> None:
    result = full_searcher.search("116.3b", lang="en", edition="2016-11-11")
    assert result.hits[0].number == "116.3b"
    assert "117.3b" in result.message


def test_tournament_section_found_by_its_name(full_searcher) -> None:
    # "Raccourcis de tournoi" is the section's name, in none of its bullets' texts.
    # Before the section's name was indexed, no bullet was among the first hundred hits.
    hits = [h for h in full_searcher.search("raccourcis de tournoi").hits if h.kind != "glossary"]
    found = [h for h in hits[:3] if h.kind == "tournament"]
    # The section's own heading, its number apart (hits used to read "4.2 MTR 4.2 ...").
    assert found and found[0].title == "Raccourcis de tournoi" and found[0].number == "4.2"


def test_players_name_for_a_concept_brings_the_rules_name(full_searcher) -> None:
    # "goes first" is the term base's player name for the starting player (103.1); the rules
    # of variants that say "goes first" word for word (808.4, 809.4) ranked above it, voted
    # for by the variants' questions ("Who goes first in Team vs Team?"): a variant's rule now
    # needs the question to name the variant (kb.search.ranking.VARIANT), and a question naming
    # one concept only is answered by its rules (OFF_CONCEPT_VOTE: 601.6b's question, about a
    # spell making two players act, voted it above 103.1).
    hits = [h for h in full_searcher.search("who goes first").hits if h.kind != "glossary"]
    assert (hits[0].canonical or "").startswith("103.1")
    variants = [h for h in hits[:3] if (h.canonical or "")[:1] in ("8", "9")]
    assert not variants, [h.canonical for h in hits[:3]]


def test_variant_rules_need_the_question_to_name_the_variant(full_searcher) -> None:
    # Issue 28: "both players pass" showed draft "passing" rules (903.13c, 905.1a/b) above 117.4;
    # Two-Headed Giant's 805.5b (teams passing) was fourth.
    hits = [h for h in full_searcher.search("both players pass").hits if h.kind != "glossary"]
    assert hits[0].canonical == "117.4"
    assert not [h for h in hits[:5] if (h.canonical or "")[:1] in ("8", "9")]
    # ... while a question naming the variant still finds its rules first.
    hits = [h for h in full_searcher.search("commander tax").hits if h.kind != "glossary"]
    assert (hits[0].canonical or "").startswith("903")


_ORDER_SCRIPT = """
import sys
from pathlib import Path
from kb.build import load
from kb.search import Searcher
instance = Path(sys.argv[1])
searcher = Searcher(instance / "index", load(instance))
for query in sys.argv[2:]:
    result = searcher.search(query, lang="en")
    print(query, [(h.number, h.lang, round(h.score, 9)) for h in result.hits[:10]])
searcher.close()
"""


def test_ranking_does_not_depend_on_the_process_hash_seed(full_instance: Path) -> None:
    # Two server workers must answer a query alike: sets of words iterate in an order that
    # changes with PYTHONHASHSEED, and summing scores in that order swapped equal-looking hits.
    import os
    import subprocess
    import sys

    queries = ["state-based actions", "effect continuous layer", "lifelink noncombat damage"]
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _ORDER_SCRIPT, str(full_instance), *queries],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs


@pytest.mark.parametrize(
    ("query", "lang"),
    [
        ("what happens when a creature with lethal damage is dealt damage again", None),
        ("can I respond to a land being played", "en"),
        ("que se passe-t-il quand tous les joueurs passent", None),
    ],
)
def test_the_first_page_does_not_depend_on_the_page_size(full_searcher, query, lang) -> None:
    # The reranked candidates are as many for 10 hits a page as for 50, and a deeper page
    # continues the first: page 2 of 10 is hits 11-20 of one page of 20.
    def keys(result) -> list[tuple[str, str | None, str, str]]:
        return [(h.kind, h.number, h.lang, h.key) for h in result.hits]

    ten = full_searcher.search(query, lang=lang, limit=10)
    fifty = full_searcher.search(query, lang=lang, limit=50)
    twenty = full_searcher.search(query, lang=lang, limit=20)
    second = full_searcher.search(query, lang=lang, limit=10, page=2)
    assert len(fifty.hits) == 50
    assert keys(fifty)[:10] == keys(ten)
    assert keys(twenty) == keys(ten) + keys(second)


@pytest.mark.parametrize(
    "query, word",
    [
        ("who owns a card I stole from my opponent", "stole"),
        ("does first strike beat deathtouch", "beat"),
    ],
)
def test_a_common_english_word_is_no_typo(full_searcher, query: str, word: str) -> None:
    # The rules never say "stole" or "beat"; they are still English, not "style" and "bear".
    result = full_searcher.search(query, lang="en")
    assert result.suggestion is None or word in result.suggestion.split()
    assert full_searcher.search("manna abilities", lang="en").suggestion == "mana abilities"


def test_a_word_of_a_named_concept_is_no_typo(full_searcher) -> None:
    # "lien de vie" is lifelink's French name: "lien" is not "rien", and the concept leads.
    result = full_searcher.search("comment fonctionne le lien de vie")
    assert result.suggestion is None or "lien" in result.suggestion.split()
    rules = [(h.canonical or h.number or "") for h in result.hits if h.kind != "glossary"]
    # Lifelink's rules: its own (702.15) and 120.3f, the damage rule that says what it does.
    assert rules[0].startswith("702.15"), rules[:3]
    assert len(rules) >= 3 and all(n.startswith(("702.15", "120.3f")) for n in rules[:3]), rules


@pytest.mark.parametrize(("query", "lang"), [("draw", None), ("trample", "en")])
def test_total_is_the_same_on_every_page_and_limit(full_searcher, query: str, lang) -> None:
    # The rules the matching examples cite join the results: the total counted them only
    # when the page fetched them, so page 1 of "draw" said 128 results and its last page 133.
    first = full_searcher.search(query, lang=lang)
    pages = [full_searcher.search(query, lang=lang, limit=100, page=n) for n in (1, 2, 3)]
    docs = [(h.kind, h.key, h.number, h.lang, h.title) for r in pages for h in r.hits]
    assert len(set(docs)) == len(docs) == first.total > 10
    assert {r.total for r in pages} == {first.total}
    assert first.pages == -(-first.total // 10)
    last = full_searcher.search(query, lang=lang, page=first.pages)
    assert last.total == first.total and 0 < len(last.hits) <= 10
    assert not full_searcher.search(query, lang=lang, page=first.pages + 1).hits


@pytest.mark.parametrize("query", ["stat based actions", "tide", "pause", "mere"])
def test_a_common_english_word_is_no_french_typo(full_searcher, query: str) -> None:
    # With no language chosen the French vocabulary "corrected" them: "etat", "vide", "passe".
    assert full_searcher.search(query).suggestion is None
    assert full_searcher.search("stat", lang="fr").suggestion == "état"  # a French question
    assert full_searcher.search("creture").suggestion == "creature"


@pytest.mark.parametrize("lang", [None, "fr"])
def test_a_word_of_a_term_name_is_no_typo(full_searcher, lang) -> None:
    # "lien" (of "lien de vie", lifelink) alone was corrected to "rien".
    assert full_searcher.search("lien", lang=lang).suggestion is None


def test_nearby_numbers_surround_the_missing_one(full_searcher) -> None:
    # "505.54" listed 505 and its first four subrules, leaving out 505.5 and 505.6 around it.
    result = full_searcher.search("505.54")
    assert not result.hits
    nearby = next(n for n in result.notes if n.code == "nearby").params["numbers"]
    assert nearby[0] == "505" and {"505.5", "505.6"} <= set(nearby)


def test_the_searcher_keeps_the_questions_apart(full_searcher) -> None:
    from whoosh import query as wq

    from kb.search.analysis import terms
    from kb.search.postings import Evaluation

    asks = full_searcher._asks
    assert asks and full_searcher._asks_apart
    found = full_searcher._index.evaluate(
        wq.Term("body_en", terms("priority", "en")[0]), False, Evaluation()
    )
    assert found and not asks.intersection(found)
    voting = full_searcher._index.evaluate(
        wq.Term("body_en", terms("priority", "en")[0]), False, Evaluation(), True
    )
    assert voting and set(voting) <= asks
