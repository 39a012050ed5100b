"""The readers of the four wiki/site seed formats, on the embedded seeds and small fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.sources import seed_en_wiki, seed_fr_wiki, seed_ja_wiki, seed_site, wiki
from kb.sources.records import SourceDoc, SourceError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"


def read(reader, path: Path) -> list[SourceDoc]:
    return reader(path, path.read_text(encoding="utf-8"))


# ---- French wiki (seed 000) ------------------------------------------------------------------


@pytest.fixture(scope="module")
def fr_docs(corpus_dir: Path) -> list[SourceDoc]:
    return read(seed_fr_wiki.read, corpus_dir / "sources" / "fr-wiki-la-priorite.txt")


def test_fr_wiki_gives_commentary_and_two_quotes(fr_docs: list[SourceDoc]) -> None:
    kinds = [(d.kind, d.lang, d.part) for d in fr_docs]
    assert kinds == [
        ("commentary", "fr", "commentary"),
        ("cr-partial", "fr", "fr"),
        ("cr-partial", "en", "en"),
    ]
    for doc in fr_docs[1:]:
        assert doc.date is None
        assert doc.numbering == "2010-07-01..2019-06-30"
        assert doc.problems == []


def test_fr_wiki_quotes_hold_the_same_rules(fr_docs: list[SourceDoc]) -> None:
    fr, en = fr_docs[1], fr_docs[2]
    expected = ["116", "116.1", "116.1a", "116.1b", "116.1c", "116.1d", "116.2"]
    assert [r.number for r in fr.rules][:7] == expected
    assert [r.number for r in fr.rules] == [r.number for r in en.rules]
    assert fr.rules[-1].number == "116.7" and len(fr.rules) == 21
    # "116.5 Chaque fois …" has no trailing period after its number: still rule 116.5.
    by_number = {r.number: r for r in fr.rules}
    assert by_number["116.5"].text.startswith("Chaque fois qu'un joueur devrait recevoir")
    assert by_number["116"].title == "Timing et priorité" and by_number["116"].text == ""
    assert en.rules[0].title == "Timing and Priority"
    assert "he or she has priority" in {r.number: r for r in en.rules}["116.1a"].text


def test_fr_wiki_commentary_names_rule_and_terms(fr_docs: list[SourceDoc]) -> None:
    doc = fr_docs[0]
    assert doc.title == "La priorité"
    assert [c.key for c in doc.commentary] == ["c1", "c2", "c3", "c4", "c5"]
    assert all(c.about_rules == ["116"] for c in doc.commentary)
    assert doc.commentary[0].text.startswith("La priorité est un système")
    harvested = {(p.term, p.en) for p in doc.term_pairs}
    assert harvested == {
        ("Lancer un Sort", None),
        ("Capacité activée", None),
        ("Capacité de mana", None),
        ("Joueur actif", None),
        ("Pile", None),
        ("Action basée sur un état", None),
        ("Capacité déclenchée", None),
    }
    assert doc.commentary[3].about_terms == ["Action basée sur un état", "Capacité déclenchée"]


def test_fr_wiki_fixture_joins_wrapped_lines_and_reads_era() -> None:
    docs = read(seed_fr_wiki.read, FIXTURES / "fr-wiki-wrapped.txt")
    assert [d.lang for d in docs] == ["fr", "fr"]
    quote = docs[1]
    assert quote.numbering == "2009-07-01..2010-06-30"
    assert quote.rules[1].text.endswith("peut agir. cette ligne continue la règle précédente.")
    assert any("joined to rule 115.1" in p.message and p.line == 5 for p in quote.problems)
    # The page has no English quote: said, not invented.
    assert any("no en quote" in p.message for p in docs[0].problems)
    assert {p.term for p in docs[0].term_pairs} == {"Pile", "Phase principale"}


def test_fr_wiki_without_marker_is_an_error(tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Une page sans citation.\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"page\.txt"):
        read(seed_fr_wiki.read, page)


# ---- English wiki (seed 001) -----------------------------------------------------------------


@pytest.fixture(scope="module")
def en_doc(corpus_dir: Path) -> SourceDoc:
    (doc,) = read(seed_en_wiki.read, corpus_dir / "sources" / "en-wiki-priority.txt")
    return doc


def test_en_wiki_rules_and_date(en_doc: SourceDoc) -> None:
    assert (en_doc.kind, en_doc.lang, en_doc.date) == ("cr-partial", "en", "2024-07-30")
    numbers = [r.number for r in en_doc.rules]
    assert numbers[0] == "117.1" and numbers[-1] == "117.3d" and len(numbers) == 14
    assert all(not r.text.startswith("-") for r in en_doc.rules)
    assert en_doc.problems == []


@pytest.mark.parametrize(
    ("line", "term", "definition_start"),
    [
        ("Pass To decline to take any action (such as casting a spell)", "Pass", "To decline"),
        ("Pass in Succession All players “pass in succession” if …", "Pass in Succession", "All"),
        ("In Response To An instant spell that’s been cast", "In Response To", "An instant"),
        ("Priority Which player can take actions at any given time", "Priority", "Which player"),
        ("End of Combat Step Part of the combat phase.", "End of Combat Step", "Part of"),
        ("Active Player The player whose turn it is.", "Active Player", "The player"),
    ],
)
def test_split_glossary_term(line: str, term: str, definition_start: str) -> None:
    split = seed_en_wiki.split_term(line)
    assert split is not None
    assert split[0] == term
    assert split[1].startswith(definition_start)


def test_split_glossary_term_without_definition() -> None:
    assert seed_en_wiki.split_term("Priority") is None
    assert seed_en_wiki.split_term("lower case words only") is None


def test_en_wiki_glossary_quotes(en_doc: SourceDoc) -> None:
    terms = {g.term: g for g in en_doc.glossary}
    assert list(terms) == ["Pass", "Pass in Succession", "In Response To", "Priority"]
    assert terms["In Response To"].rule_refs == ["117.7"]
    assert terms["Priority"].rule_refs == ["117"]
    assert terms["Pass"].definition.startswith("To decline to take any action")


def test_en_wiki_external_links_are_not_rules(en_doc: SourceDoc) -> None:
    assert [c.heading for c in en_doc.commentary] == ["External links", "External links"]
    assert en_doc.commentary[0].text.startswith("Reid Duke")
    assert all(not r.text.startswith("Reid") for r in en_doc.rules)


def test_en_wiki_conflicting_glossary_dates_are_reported(tmp_path: Path) -> None:
    page = tmp_path / "p.txt"
    page.write_text(
        "From the glossary of the Comprehensive Rules (July 30, 2024—Bloomburrow)\n"
        "Pass To decline to take any action.\n"
        "From the glossary of the Comprehensive Rules (November 14, 2025—Avatar)\n"
        "Priority Which player can take actions.\n",
        encoding="utf-8",
    )
    (doc,) = read(seed_en_wiki.read, page)
    assert doc.date == "2024-07-30"
    assert [(p.line, "2025-11-14" in p.message) for p in doc.problems] == [(3, True)]


# ---- Japanese wiki (seed 002) ----------------------------------------------------------------


@pytest.fixture(scope="module")
def ja_docs(corpus_dir: Path) -> list[SourceDoc]:
    return read(seed_ja_wiki.read, corpus_dir / "sources" / "ja-mtgwiki-yusenken.txt")


def test_ja_wiki_commentary_sections(ja_docs: list[SourceDoc]) -> None:
    doc = ja_docs[0]
    assert (doc.kind, doc.lang, doc.title) == ("commentary", "ja", "優先権")
    headings = [c.heading for c in doc.commentary]
    assert headings == [None, "概要", "優先権が発生するタイミング", "優先権が発生する時に行う手順",
                        "優先権のパス", "その他"]  # fmt: skip
    assert doc.commentary[1].text.count("\n") == 2  # three bullets kept as lines
    assert all("提供" not in c.text and "目次" not in c.text for c in doc.commentary)
    assert [(p.term, p.en, p.line) for p in doc.term_pairs] == [("優先権", "Priority", 3)]


def test_ja_wiki_quote(ja_docs: list[SourceDoc]) -> None:
    quote = ja_docs[1]
    assert (quote.kind, quote.lang, quote.part) == ("cr-partial", "ja", "ja")
    assert (quote.version, quote.date, quote.translates) == (
        "20231117.0",
        "2023-11-17",
        "2023-11-17",
    )
    rules = {r.number: r for r in quote.rules}
    assert rules["116"].title == "特別な処理"
    assert rules["1"].title == "ゲームの考え方"
    assert [n for n in rules if n.startswith("116.2")] == ["116.2"] + [
        f"116.2{x}" for x in "abcdefghij"
    ]
    assert "rule 703〔ターン起因処理〕" in rules["116.1"].text
    # The page repeats "- 116 特別な処理" at its end: dropped, with a warning naming the line.
    assert [(p.line, "repeated" in p.message) for p in quote.problems] == [(47, True)]


def test_ja_pairs_pattern() -> None:
    lines = wiki.numbered_lines("誘発型能力/Triggered Abilityと起動型能力／Activated Ability。")
    pairs = wiki.harvest_ja_pairs(lines)
    assert [(p.term, p.en) for p in pairs] == [
        ("誘発型能力", "Triggered Ability"),
        ("起動型能力", "Activated Ability"),
    ]


def test_ja_page_without_quote() -> None:
    docs = read(seed_ja_wiki.read, FIXTURES / "ja-no-quote.txt")
    assert [d.kind for d in docs] == ["commentary"]
    assert docs[0].title == "スタック"
    assert [(p.term, p.en) for p in docs[0].term_pairs] == [
        ("スタック", "Stack"),
        ("誘発型能力", "Triggered Ability"),
    ]


# ---- bilingual site (seed 003) ---------------------------------------------------------------


@pytest.fixture(scope="module")
def site_doc(corpus_dir: Path) -> SourceDoc:
    (doc,) = read(seed_site.read, corpus_dir / "sources" / "en-site-rule-505-2011-09-30.txt")
    return doc


def test_site_page_rules(site_doc: SourceDoc) -> None:
    assert (site_doc.kind, site_doc.lang, site_doc.date) == ("cr-partial", "en", "2011-09-30")
    numbers = [r.number for r in site_doc.rules]
    assert numbers == ["505", "505.1", "505.1a", "505.2", "505.3", "505.4", "505.5", "505.5a",
                       "505.5b"]  # fmt: skip
    assert site_doc.rules[0].title == "Main Phase"
    assert site_doc.rules[1].line == 31
    assert site_doc.problems == []


def test_site_page_keeps_the_printed_punctuation(site_doc: SourceDoc) -> None:
    rules = {r.number: r for r in site_doc.rules}
    assert "it‘s the active player‘s precombat main phase" in rules["505.3"].text
    assert "(see rule 506, «Combat Phase»)" in rules["505.1"].text


def test_site_page_number_without_text_is_reported() -> None:
    (doc,) = read(seed_site.read, FIXTURES / "site-missing-text.txt")
    assert [r.number for r in doc.rules] == ["116", "116.1"]
    assert doc.rules[0].title == "Special Actions"
    assert [(p.line, "no text" in p.message) for p in doc.problems] == [(15, True)]


def test_french_date() -> None:
    assert seed_site.french_date("04/02/2011") == "2011-02-04"
    assert seed_site.french_date("31/02/2011") is None


# ---- shared helpers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("116.1. Unless a spell", ("116.1", "Unless a spell", True)),
        ("116.5 Chaque fois", ("116.5", "Chaque fois", False)),
        ("- 117.1a A player may", ("117.1a", "A player may", False)),
        ("116. Timing et priorité", ("116", "Timing et priorité", True)),
        ("- 1 ゲームの考え方", ("1", "ゲームの考え方", False)),
        ("La traduction française", None),
        ("1000. Not a rule", None),
        ("116.1.", None),
    ],
)
def test_parse_rule_line(line: str, expected: tuple[str, str, bool] | None) -> None:
    assert wiki.parse_rule_line(line) == expected


def test_rule_refs() -> None:
    text = "Cf. règle 115, « Actions spéciales ». See rule 603.2a and rules 604 and rule 703〔x〕."
    assert wiki.rule_refs(text, "fr") == ["115", "603.2a", "604", "703"]
    assert wiki.rule_refs("rules 601.2f–h and 603.2", "en") == [
        "601.2f",
        "601.2g",
        "601.2h",
        "603.2",
    ]
    assert wiki.rule_refs("ルール117「タイミングと優先権」参照", "ja") == ["117"]


@pytest.mark.parametrize(("joiner", "text"), [("\n", "First.\nwrapped"), (" ", "First. wrapped")])
def test_read_rule_lines(joiner: str, text: str) -> None:
    lines = wiki.numbered_lines(
        "stray words\n- 116.1 First.\nwrapped\n\n- Example: A casts.\n116.2. Second.",
        start=10,
    )
    problems: list = []
    rules = wiki.read_rule_lines(lines, joiner, "quote.txt", problems)
    assert [(r.number, r.text, r.line) for r in rules] == [
        ("116.1", text, 11),
        ("116.2", "Second.", 15),
    ]
    assert rules[0].examples == ["Example: A casts."]
    assert [(p.line, p.message) for p in problems] == [
        (10, "text before the first rule: not read"),
        (12, "unnumbered line joined to rule 116.1"),
    ]


def test_ja_pairs_skip_the_words_before_the_term() -> None:
    lines = wiki.numbered_lines("プレイヤーは特別な処理/Special Actionを行う。")
    assert [(p.term, p.en) for p in wiki.harvest_ja_pairs(lines)] == [
        ("特別な処理", "Special Action")
    ]
