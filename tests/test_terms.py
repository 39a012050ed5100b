"""The term base: loading, completeness, harvested pairs and cross-language query terms."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.knowledge.model import Term
from kb.knowledge.terms import (
    TermIndex,
    load_terms,
    merge_harvested,
    normalize_name,
    sources_of,
    translate_query_terms,
)
from kb.sources.records import SourceError, TermPair
from kb.sources.registry import load_manifest, read_source
from kb.text.rulenum import try_parse


@pytest.fixture(scope="module")
def terms(corpus_dir: Path) -> list[Term]:
    return load_terms(corpus_dir / "terms.toml")


@pytest.fixture(scope="module")
def seed_docs(corpus_dir: Path) -> dict[str, list]:
    """The documents of every seed, keyed by their format."""
    out: dict[str, list] = {}
    for name, entry in load_manifest(corpus_dir).items():
        out.setdefault(entry["format"], []).extend(
            read_source(corpus_dir / "sources" / name, entry)
        )
    return out


def test_completeness(terms: list[Term]) -> None:
    assert len(terms) >= 45
    missing = [t.id for t in terms if not (t.en and t.fr and t.ja)]
    assert missing == []
    assert len({t.id for t in terms}) == len(terms)
    assert all(try_parse(r) is not None for t in terms for r in t.rules)


@pytest.mark.parametrize(
    ("tid", "en", "fr", "ja", "rules"),
    [
        ("priority", "priority", "priorité", "優先権", ["117"]),
        ("stack", "stack", "pile", "スタック", ["405"]),
        ("special-action", "special action", "action spéciale", "特別な処理", ["116"]),
        ("state-based-action", "state-based action", "action basée sur un état", "状況起因処理",
         ["704"]),
        ("triggered-ability", "triggered ability", "capacité déclenchée", "誘発型能力", ["603"]),
        ("mana-ability", "mana ability", "capacité de mana", "マナ能力", ["605"]),
        ("turn-based-action", "turn-based action", "action obligatoire du tour", "ターン起因処理",
         ["703"]),
        ("active-player", "active player", "joueur actif", "アクティブ・プレイヤー", ["102.1"]),
        ("cleanup-step", "cleanup step", "étape de nettoyage", "クリンナップ・ステップ", ["514"]),
        ("split-second", "split second", "second déploiement", "刹那", ["702.61"]),
    ],
)  # fmt: skip
def test_core_concepts(
    terms: list[Term], tid: str, en: str, fr: str, ja: str, rules: list[str]
) -> None:
    term = next(t for t in terms if t.id == tid)
    assert (term.en[0], term.fr[0], term.ja[0], term.rules) == (en, fr, ja, rules)


def test_later_french_wording_is_a_variant(terms: list[Term]) -> None:
    term = next(t for t in terms if t.id == "turn-based-action")
    assert "action basée sur le tour" in term.fr


def test_pairs_marked_as_harvested_are_in_their_seed(
    corpus_dir: Path, terms: list[Term], seed_docs: dict[str, list]
) -> None:
    by_id = {t.id: t for t in terms}
    marked = {
        (tid, src.removeprefix("seed "))
        for tid, sources in sources_of(corpus_dir / "terms.toml").items()
        for src in sources
        if src.startswith("seed ")
    }
    assert ("priority", "ja-mtgwiki") in marked
    assert {fmt for _, fmt in marked} == {"ja-mtgwiki", "fr-wiki", "en-wiki"}
    for tid, fmt in sorted(marked):
        term = by_id[tid]
        docs = seed_docs[fmt]
        pairs = [p for d in docs for p in d.term_pairs]
        glossary = [g.term.lower() for d in docs for g in d.glossary]
        if fmt == "ja-mtgwiki":
            found = any(p.term in term.ja and p.en.lower() in term.en for p in pairs)
        elif fmt == "fr-wiki":
            found = any(p.term.lower() in term.fr for p in pairs)
        else:
            found = any(g in term.en for g in glossary)
        assert found, f"{tid} is marked 'seed {fmt}' but that seed does not give it"


def test_every_harvested_pair_fits_the_term_base(
    terms: list[Term], seed_docs: dict[str, list]
) -> None:
    pairs = [p for docs in seed_docs.values() for d in docs for p in d.term_pairs]
    assert len(pairs) >= 8
    merged, messages = merge_harvested(terms, pairs)
    assert messages == []
    assert [t.id for t in merged] == [t.id for t in terms]  # nothing new, nothing dropped


def test_merge_adds_missing_names_and_reports_conflicts() -> None:
    base = [
        Term("priority", ["priority"], ["priorité"], []),
        Term("stack", ["stack"], ["pile"], ["スタック"]),
    ]
    pairs = [
        TermPair("ja", "優先権", "Priority", 3),  # fills the missing Japanese name
        TermPair("ja", "スタック", "Priority", 4),  # スタック is the stack: a conflict
        TermPair("ja", "マナ能力", "Mana Ability", 5),  # unknown concept: added
        TermPair("fr", "Pile", None, 6),  # a known French link
        TermPair("fr", "Réserve de mana", None, 7),  # an unknown French link: reported
    ]
    merged, messages = merge_harvested(base, pairs)
    by_id = {t.id: t for t in merged}
    assert by_id["priority"].ja == ["優先権"]
    assert by_id["stack"].ja == ["スタック"] and by_id["priority"].fr == ["priorité"]
    assert by_id["mana-ability"].en == ["mana ability"] and by_id["mana-ability"].ja == ["マナ能力"]
    assert len(messages) == 2
    assert "conflict" in messages[0] and "スタック" in messages[0]
    assert "Réserve de mana" in messages[1] and "line 7" in messages[1]
    assert base[0].ja == []  # the input is not modified


def test_merge_keeps_curated_names_first() -> None:
    base = [Term("special-action", ["special action"], ["action spéciale"], ["特別な処理"])]
    merged, messages = merge_harvested(base, [TermPair("ja", "特殊行動", "Special Action", 1)])
    assert merged[0].ja == ["特別な処理", "特殊行動"]
    assert messages == []


@pytest.mark.parametrize(
    ("text", "src", "dst", "expected"),
    [
        ("優先権", "ja", "en", ["priority"]),
        ("優先権", "ja", "fr", ["priorité"]),
        ("state-based actions", "en", "fr", ["action basée sur un état"]),
        ("State Based Action", "en", "ja", ["状況起因処理"]),
        ("Actions basées sur un état", "fr", "en", ["state-based action"]),
        ("actions basees sur un etat", "fr", "ja", ["状況起因処理"]),
        ("Quand le joueur non actif reçoit-il la priorité ?", "fr", "en",
         ["nonactive player", "priority"]),
        ("アクティブプレイヤーが優先権を得る", "ja", "fr", ["joueur actif", "priorité"]),
        ("非アクティブ・プレイヤー", "ja", "en", ["nonactive player"]),
        ("ＡＣＴＩＶＡＴＥＤ ABILITIES", "en", "fr", ["capacité activée"]),
        ("resolving triggered abilities", "en", "ja", ["解決", "誘発型能力"]),
        ("passes in succession", "en", "fr", ["passer successivement"]),
        ("actions obligatoires du tour", "fr", "en", ["turn-based action"]),
        ("action basée sur le tour", "fr", "ja", ["ターン起因処理"]),
        ("the untap step and the upkeep", "en", "ja",
         ["アンタップ・ステップ", "アップキープ・ステップ"]),
        ("タイミングと優先権", "ja", "en", ["timing and priority"]),
        ("nothing to see", "en", "fr", []),
    ],
)  # fmt: skip
def test_translate_query_terms(
    terms: list[Term], text: str, src: str, dst: str, expected: list[str]
) -> None:
    assert translate_query_terms(text, src, dst, terms) == expected


def test_translate_rejects_unknown_language(terms: list[Term]) -> None:
    with pytest.raises(ValueError, match="de"):
        translate_query_terms("priority", "en", "de", terms)


def test_term_index_finds_concepts_once_in_order(terms: list[Term]) -> None:
    index = TermIndex(terms)
    found = index.find("the active player has priority; the active player has it", "en")
    assert [t.id for t in found] == ["active-player", "priority"]
    assert index.find("優先権を得る", "ja")[0].id == "priority"
    assert index.translate("priorité", "fr", "ja") == ["優先権"]
    with pytest.raises(ValueError, match="de"):
        index.find("priority", "de")


def test_translate_query_terms_sees_a_new_list(terms: list[Term]) -> None:
    assert translate_query_terms("cœur du sujet", "fr", "en", terms) == []
    more = [*terms, Term("heart", ["heart"], ["cœur"], ["心臓"])]
    assert translate_query_terms("cœur du sujet", "fr", "en", more) == ["heart"]
    # Accents are folded the way the search folds them: "coeur" and "cœur" are one word.
    assert translate_query_terms("le coeur", "fr", "ja", more) == ["心臓"]


@pytest.mark.parametrize(
    ("name", "lang", "key"),
    [
        ("Cœur", "fr", "coeur"),
        ("Capacités déclenchées", "fr", "capacit declench"),
        ("Ex æquo", "fr", "ex aequo"),
        ("Resolving", "en", "resolv"),
        ("アクティブ・プレイヤー", "ja", "アクティブプレイヤー"),
        ("ｱｸﾃｨﾌﾞ プレイヤー", "ja", "アクティブプレイヤー"),
    ],
)
def test_normalize_name(name: str, lang: str, key: str) -> None:
    assert normalize_name(name, lang) == key


# ---- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message", "line"),
    [
        ('[[term]]\nid = "x"\nen = ["x"\n', "not valid TOML", 3),
        ('[[term]]\nid = "x"\nen = x\n', "not valid TOML", 3),
        ('[[term]]\nid = "a"\nen = ["a"]\n\n[[term]]\nid = "b"\nfr = ["b"]\n', "no English", 5),
        ('[[term]]\nid = "Bad Id"\nen = ["a"]\n', "valid id", 1),
        ('[[term]]\nid = "a"\nen = ["a"]\nrules = ["x1"]\n', "rule numbers", 1),
        ('[[term]]\nid = "a"\nen = ["a"]\ncolour = "red"\n', "unknown key", 1),
        ('[[term]]\nid = "a"\nen = ["a"]\n[[term]]\nid = "a"\nen = ["b"]\n', "repeated", 4),
        ('title = "no terms"\n', "no \\[\\[term\\]\\]", None),
    ],
)
def test_load_errors_name_file_and_line(
    tmp_path: Path, content: str, message: str, line: int | None
) -> None:
    path = tmp_path / "terms.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SourceError, match=message) as info:
        load_terms(path)
    assert info.value.problem.path == str(path)
    assert info.value.problem.line == line


def test_missing_term_base(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        load_terms(tmp_path / "none.toml")


def test_colours_land_types_and_triggering_reach_the_english_rules(terms: list[Term]) -> None:
    index = TermIndex(terms)
    # "isn't a swamp a black permanent?": the game's printed words, in French and Japanese.
    assert {"Swamp", "black", "permanent"} <= set(
        index.translate("un marais n'est-il pas un permanent noir", "fr", "en")
    )
    assert "trigger" in index.translate("sa capacité se déclenche-t-elle deux fois", "fr", "en")
    assert {"black", "trigger"} <= set(index.translate("黒のクリーチャーが誘発する", "ja", "en"))
    # 山札 (players' word for the library) is no 山 (Mountain): the longest name wins.
    assert index.translate("山札が0枚", "ja", "en") == ["library"]
