"""Translations in the one-paragraph-a-line layout, built with the official English editions:
the four Japanese excerpts as one edition, rule-by-rule pairing with the English edition of
their date or the nearest older one, their glossary paired with the English glossary and joined
to the term base, Japanese search on them, and translation files left out with file and line."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from kb.build import build, build_kb, load
from kb.build.glossary_pairs import pair_glossaries
from kb.build.read import assemble, corpus_inputs, read_all
from kb.cli.main import EXIT_LEFT_OUT, main
from tests.conftest import SHARED_RAW

CR_JA = SHARED_RAW / "cr-ja"
FR_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "cr" / "fr-translated"
JA = "ja-2026-01-16"


@pytest.fixture(scope="module")
def cr_ja(cr_en_dir: Path) -> Path:
    if not CR_JA.is_dir() or len(list(CR_JA.glob("*.txt"))) != 4:
        pytest.skip(f"the Japanese excerpts are not at {CR_JA} (../shared/corpus-raw is absent)")
    return CR_JA


@pytest.fixture(scope="module")
def ja_instance(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path, cr_ja: Path) -> Path:
    instance = tmp_path_factory.mktemp("ja") / "instance"
    build(instance, [cr_en_dir, cr_ja])
    return instance


@pytest.fixture(scope="module")
def ja_kb(ja_instance: Path):
    return load(ja_instance)


def _grep_counts(folder: Path) -> tuple[set[str], int, int]:
    """Independently of the readers: distinct subrule numbers and rule lines in all excerpts,
    examples counted once per distinct rule (the excerpts overlap on 116-117.1a)."""
    numbers: list[str] = []
    examples: dict[str, int] = {}
    for path in sorted(folder.glob("*.txt")):
        owner = None
        lines = path.read_text(encoding="utf-8").split("\n")
        if "もくじ" in lines:
            lines = lines[lines.index("マジック：ザ・ギャザリング　総合ルール") :]
        counted: dict[str, int] = {}
        for line in lines:
            found = re.match(r"(\d{3}\.\d+[a-z]?)\.?[ 　]", line)
            if found:
                owner = found[1]
                numbers.append(owner)
            elif line.startswith(("例：", "例:")) and owner:
                counted[owner] = counted.get(owner, 0) + 1
        for number, count in counted.items():
            examples[number] = max(examples.get(number, 0), count)
    return set(numbers), len(numbers), sum(examples.values())


def test_excerpts_build_as_one_edition(ja_kb, cr_ja: Path) -> None:
    distinct, lines, examples = _grep_counts(cr_ja)
    assert (len(distinct), lines) == (398, 415)
    ed = ja_kb.editions[JA]
    assert (ed.lang, ed.kind, ed.date, ed.translates) == (
        "ja",
        "partial",
        "2026-01-16",
        "en-2026-01-16",
    )
    assert len(ed.sources) == 4
    rules = ja_kb.rules[JA]
    assert {n for n in rules if "." in n} == distinct
    assert sum(len(r.examples) for r in rules.values()) == examples == ed.counts["examples"]
    assert ed.counts["glossary"] == 220
    assert not [w for w in ja_kb.warnings if "differs from the one of" in w]


def test_rules_pair_with_the_nearest_older_english_edition(ja_kb, ja_instance: Path) -> None:
    for number in ("116.2a", "117.3b", "704.5j"):
        rule = ja_kb.rule(JA, number)
        assert rule.canonical == number
        assert ja_kb.concordance[rule.lineage]["en-2025-11-14"] == number
    notes = json.loads((ja_instance / "build.json").read_text(encoding="utf-8"))["notes"]
    assert (
        f"{JA}: the English edition it follows is absent; numbering of en-2025-11-14 assumed"
        in notes
    )
    # The wiki seed's 116 (総合ルール 20231117.0) pairs as before: through en-2023-11-17.
    seed = ja_kb.rule("ja-2023-11-17", "116.2a")
    assert seed.lineage == "116.2a" == ja_kb.rule(JA, "116.2a").lineage
    assert ja_kb.editions["ja-2023-11-17"].translates == "en-2023-11-17"
    # A rule the excerpts lack falls back to English, flagged.
    from kb.knowledge.lookup import lookup_rule

    rule, fallback = lookup_rule(ja_kb, "ja", "702.105a")
    assert rule.lang == "en" and fallback


def test_glossary_pairs_with_the_english_glossary(cr_en_dir: Path, cr_ja: Path) -> None:
    docs, problems = read_all(corpus_inputs([cr_en_dir, cr_ja]))
    kb = assemble(docs, problems)
    term_pairs, pairs, notes = pair_glossaries(kb, docs, problems)
    assert len(pairs) == 220 and all(p.en_key for p in pairs)
    assert {p.en_edition for p in pairs} == {"en-2025-11-14"}
    by_key = {p.key: p for p in pairs}
    assert by_key["連繋"].en_key == "splice" and by_key["連繋"].how == "name"
    assert by_key["配備カード"].en_key == "station cards"  # printed "Staion Cards"
    assert by_key["ファイレクシア・シンボル"].en_key == "phyrexian symbol"  # "Phyrexia Symbol"
    assert (
        by_key["モードを持たない両面カード"].en_key == "nonmodal double-faced card"
    )  # "Nonmodal "
    assert by_key["モードを持つ両面カード"].en_key == "modal double-faced cards"
    assert by_key["引く"].en_key == by_key["引き分け"].en_key == "draw"
    assert sum(1 for p in pairs if p.how == "name") == 211
    assert ("ja", "覇権された", "Championed") in {(t.lang, t.term, t.en) for t in term_pairs}
    assert notes == [
        f"{JA}: glossary entries paired with en-2025-11-14's: 220 of 220 (211 by their English "
        "name as printed, 9 by a near form or one sense of it, 0 by rule targets), 0 unpaired"
    ]


def test_glossary_pairs_join_the_term_base(ja_kb) -> None:
    dethrone = next(t for t in ja_kb.terms if "dethrone" in [n.lower() for n in t.en])
    assert "廃位" in dethrone.ja  # no hand-typed pair: corpus/terms.toml does not name it
    assert "廃位" not in (Path(__file__).parents[1] / "corpus" / "terms.toml").read_text("utf-8")
    # Glossary linking: the Japanese 704.5j links its official terms to the Japanese entries.
    rule = ja_kb.rule(JA, "704.5j")
    assert "墓地" in rule.terms and "レジェンド・ルール" in rule.terms


def _search(instance: Path, *args: str) -> dict:
    out = io.StringIO()
    assert main(["search", "--instance", str(instance), "--json", *args], out) == 0
    return json.loads(out.getvalue())


def test_japanese_search_finds_the_translated_rules(ja_instance: Path) -> None:
    found = _search(ja_instance, "--lang", "ja", "プレイヤーが優先権をパス", "--limit", "5")
    top = [(h["edition"], h["number"]) for h in found["hits"]]
    assert top[0] == (JA, "117.3d") and all(n.startswith("117.") for _, n in top[:3])
    # Across languages through the glossary's pairs: an English word finds the Japanese entry.
    found = _search(ja_instance, "--lang", "ja", "dethrone", "--kind", "glossary")
    assert [(h["edition"], h["key"]) for h in found["hits"]] == [(JA, "廃位")]


def test_a_2026_english_edition_takes_over(tmp_path: Path, cr_en_dir: Path, cr_ja: Path) -> None:
    source = cr_en_dir / "MagicCompRules-2025-11-14.txt"
    data = source.read_bytes()
    assert b"November 14, 2025" in data
    synthetic = tmp_path / "MagicCompRules-2026-01-16.txt"
    synthetic.write_bytes(data.replace(b"November 14, 2025", b"January 16, 2026"))
    kb, _problems, notes = build_kb([source, synthetic, cr_ja], run_examples_too=False)
    assert not [n for n in notes if n.startswith(f"{JA}: the English edition it follows")]
    assert f"{JA}: glossary entries paired with en-2026-01-16's: 220 of 220" in " ".join(notes)
    for number in ("116.2a", "117.3b", "704.5j"):
        lineage = kb.rule(JA, number).lineage
        assert kb.concordance[lineage]["en-2026-01-16"] == number
        assert kb.concordance[lineage]["en-2025-11-14"] == number


def test_french_fixture_pairs_rule_by_rule_and_by_glossary_targets(cr_en_dir: Path) -> None:
    english = cr_en_dir / "MagicCompRules-2016-11-11.txt"
    docs, problems = read_all(corpus_inputs([english, FR_FIXTURES]))
    kb = assemble(docs, problems)
    _terms, pairs, notes = pair_glossaries(kb, docs, problems)
    assert notes[0].endswith(
        "9 of 9 (0 by their English name as printed, 0 by a near form or one sense of it, 9 by rule targets), 0 unpaired"
    )
    assert {p.key: p.en_key for p in pairs} == {
        "action spéciale": "special action",
        "capacité déclenchée": "triggered ability",
        "en réponse à": "in response to",
        "joueur actif": "active player",
        "passer": "pass",
        "passer successivement": "pass in succession",
        "pile": "stack",
        "priorité": "priority",
        "répondre": "respond",
    }
    built, _problems, _notes = build_kb(
        [english, cr_en_dir / "MagicCompRules-2025-11-14.txt", FR_FIXTURES],
        run_examples_too=False,
    )
    assert built.editions["fr-2016-11-11"].kind == "full"
    assert built.rule("fr-2016-11-11", "116.3b").canonical == "117.3b"


def test_bad_translation_files_are_left_out(tmp_path: Path, cr_ja: Path) -> None:
    folder = tmp_path / "cr-ja"
    folder.mkdir()
    good = cr_ja / "CompRules-ja-20260116-excerpt-704.txt"
    shutil.copy(good, folder / good.name)
    lines = good.read_text(encoding="utf-8").split("\n")
    mixed = [
        *lines[:5],
        "704.5z The player who has the most poison counters loses the game.",
        *lines[5:],
    ]
    (folder / "mixed.txt").write_text("\n".join(mixed), encoding="utf-8")
    glossary = (cr_ja / "CompRules-ja-20260116-excerpt-glossary-end.txt").read_text("utf-8")
    (folder / "bad-date.txt").write_text(glossary.replace("1月16日", "13月16日"), encoding="utf-8")
    (folder / "damaged.txt").write_bytes(good.read_bytes()[:-7])
    out = io.StringIO()
    code = main(["build", "--instance", str(tmp_path / "inst"), "--corpus", str(folder)], out)
    assert code == EXIT_LEFT_OUT
    text = out.getvalue()
    assert "mixed.txt:6:" in text and "bad-date.txt:456:" in text
    assert re.search(r"damaged\.txt:\d+: error: .*truncated", text)
    kb = load(tmp_path / "inst")
    assert kb.editions[JA].counts["rules"] == 40
