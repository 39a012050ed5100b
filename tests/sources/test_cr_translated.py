"""The reader of translated rules published one paragraph a line: the four excerpts of the
Japanese translation (counted independently from their raw lines), the French fixture in the
same layout, other encodings and line endings, and the files it must refuse (file and line)."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest

from kb.sources.cr_translated import looks_like, read
from kb.sources.decode import decode_bytes, read_text
from kb.sources.records import SourceDoc, SourceError
from kb.sources.registry import read_source, sniff
from tests.conftest import SHARED_RAW, shared_editions

CR_JA = SHARED_RAW / "cr-ja"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cr"
FR_FIXTURE = FIXTURES / "fr-translated" / "CompRules-fr-20161111-fixture.txt"
START = "CompRules-ja-20260116-excerpt-start.txt"
PART_117 = "CompRules-ja-20260116-excerpt-117.txt"
PART_704 = "CompRules-ja-20260116-excerpt-704.txt"
GLOSSARY = "CompRules-ja-20260116-excerpt-glossary-end.txt"
EXCERPTS = [START, PART_117, PART_704, GLOSSARY]


@pytest.fixture(scope="module")
def cr_ja() -> Path:
    """../shared/corpus-raw/cr-ja, or skip: the excerpts are test data we must not copy in."""
    if not all((CR_JA / name).is_file() for name in EXCERPTS):
        pytest.skip(f"the Japanese excerpts are not at {CR_JA} (../shared/corpus-raw is absent)")
    return CR_JA


def _raw_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def _counted(path: Path) -> tuple[list[str], int, int]:
    """Independently of the reader: the numbers of the rule lines after the contents (the
    contents list ends at the title line), the example lines and the glossary headings."""
    lines = _raw_lines(path)
    if "もくじ" in lines:
        lines = lines[lines.index("マジック：ザ・ギャザリング　総合ルール") :]
    numbers = [m[1] for x in lines if (m := re.match(r"(\d{3}(?:\.\d+[a-z]?)?)\.?[ 　]", x))]
    examples = sum(1 for x in lines if x.startswith(("例：", "例:")))
    credits = lines.index("クレジット") if "クレジット" in lines else len(lines)
    headings = sum(1 for x in lines[:credits] if "）／" in x)
    return numbers, examples, headings


@pytest.mark.parametrize("name", EXCERPTS)
def test_each_excerpt_alone(cr_ja: Path, name: str) -> None:
    path = cr_ja / name
    assert sniff(path, read_text(path)) == "cr-translated"
    (doc,) = read_source(path)
    numbers, examples, headings = _counted(path)
    assert (doc.lang, doc.kind, doc.format, doc.date) == (
        "ja",
        "cr-partial",
        "cr-translated",
        "2026-01-16",
    )
    assert doc.translates == doc.numbering == "2026-01-16"
    assert [r.number for r in doc.rules if "." in r.number or len(r.number) == 3] == numbers
    assert sum(len(r.examples) for r in doc.rules) == examples
    assert len(doc.glossary) == headings
    assert not [p for p in doc.problems if p.severity == "error"]


def test_excerpt_counts_as_published(cr_ja: Path) -> None:
    """SOURCES.md: the start holds 341 rules (100.1-117.1a); 415 rule lines in all, 398 distinct."""
    subrules = {name: [n for n in _counted(cr_ja / name)[0] if "." in n] for name in EXCERPTS}
    assert len(subrules[START]) == 341 and subrules[START][-1] == "117.1a"
    assert sum(map(len, subrules.values())) == 415
    assert len(set(subrules[START]) & set(subrules[PART_117])) == 17
    assert len(set().union(*subrules.values())) == 398


def test_start_header_title_and_examples(cr_ja: Path) -> None:
    (doc,) = read_source(cr_ja / START)
    assert doc.version == "2026-01-16"  # the header: 「… が 2026-01-16 に翻訳したものです。」
    assert doc.title == "マジック：ザ・ギャザリング　総合ルール"
    rules = {r.number: r for r in doc.rules}
    assert rules["1"].title == "ゲームの考え方" and rules["117"].title == "タイミングと優先権"
    assert "0" not in rules  # the introduction is no rule
    # Both "例：" and "例:" open an example; the prefix is not kept.
    lines = _raw_lines(cr_ja / START)
    colon = next(i for i, x in enumerate(lines) if x.startswith("例:"))
    owner = next(x for x in reversed(lines[:colon]) if re.match(r"\d{3}\.", x)).split()[0]
    assert lines[colon][2:] in rules[owner.rstrip(".")].examples
    assert not any(e.startswith("例") for r in doc.rules for e in r.examples)
    # One warning each for the parts with no date in them; none for the start.
    assert doc.problems == []


def test_glossary_headings(cr_ja: Path) -> None:
    (doc,) = read_source(cr_ja / GLOSSARY)
    entries = {g.term: g for g in doc.glossary}
    splice = entries["連繋"]
    assert (splice.reading, splice.en_names, splice.sense) == ("れんけい", ["Splice"], None)
    champion = entries["覇権"]
    assert champion.aliases == ["覇権された"] and champion.en_names == ["Champion", "Championed"]
    assert entries["バンド"].en_names == ["Banding", "Bands with Other"]
    assert (entries["引く"].sense, entries["引き分け"].sense) == (1, 2)
    assert entries["配置される"].obsolete
    assert entries["廃位"].rule_refs == ["702.105"]
    # A heading printed without its term is read under its reading, with a warning.
    assert entries["へや"].en_names == ["Room"]
    assert any(p.line == 209 and "without its term" in p.message for p in doc.problems)
    # The credits are not glossary entries; the last line gives the edition.
    assert len(doc.glossary) == 220 and doc.date == "2026-01-16"


def test_french_fixture() -> None:
    (doc,) = read_source(FR_FIXTURE)
    assert (doc.lang, doc.kind, doc.format) == ("fr", "cr", "cr-translated")
    assert (doc.date, doc.translates, doc.version) == ("2016-11-11", "2016-11-11", "2016-11-11")
    rules = {r.number: r for r in doc.rules}
    assert rules["116"].title == "Timing et priorité"
    assert rules["116.5"].text.startswith("Chaque fois qu'un joueur")  # printed "116.5 Chaque"
    assert rules["116.4"].examples[0].startswith("Un joueur lance un sort")
    assert [g.term for g in doc.glossary][:2] == ["Action spéciale", "Capacité déclenchée"]
    assert all(g.en_names == [] for g in doc.glossary)
    assert {g.term: g.rule_refs for g in doc.glossary}["En réponse à"] == ["116.7"]
    assert doc.problems == []


@pytest.mark.parametrize(
    ("codec", "newline"),
    [("utf-8-sig", "\r\n"), ("utf-16", "\r"), ("utf-16-le", "\n"), ("utf-8", "\r\n")],
)
def test_any_encoding_and_line_ending(cr_ja: Path, codec: str, newline: str) -> None:
    path = cr_ja / PART_704
    original = read_source(path)[0]
    data = path.read_text(encoding="utf-8").replace("\n", newline).encode(codec)
    if codec == "utf-16-le":
        data = codecs.BOM_UTF16_LE + data
    again = read(path, decode_bytes(data, str(path)))[0]
    assert [(r.number, r.text, r.examples) for r in again.rules] == [
        (r.number, r.text, r.examples) for r in original.rules
    ]


def test_other_texts_are_not_claimed(corpus_dir: Path) -> None:
    for path in sorted((corpus_dir / "sources").glob("*.txt")):
        assert not looks_like(read_text(path)), path.name
    for name in ["fr-cr-excerpt.txt", "ja-cr-excerpt.txt", "en-duplicate-rule.txt"]:
        assert sniff(FIXTURES / name, read_text(FIXTURES / name)) == "cr"
    for path in shared_editions()[-2:]:
        assert sniff(path, read_text(path)) == "cr"


# ---- files refused, with file and line -------------------------------------------------------


def _refused(tmp_path: Path, name: str, data: bytes) -> SourceError:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SourceError) as info:
        read_source(path)
    return info.value


def test_mixed_language_is_refused(cr_ja: Path, tmp_path: Path) -> None:
    lines = _raw_lines(cr_ja / PART_117)
    lines.insert(10, "117.2f A player may activate a mana ability whenever they have priority.")
    error = _refused(tmp_path, "mixed.txt", "\n".join(lines).encode())
    assert error.problem.line == 11 and "English" in error.problem.message


def test_impossible_edition_is_refused(cr_ja: Path, tmp_path: Path) -> None:
    text = (cr_ja / GLOSSARY).read_text(encoding="utf-8").replace("1月16日", "2月30日")
    error = _refused(tmp_path, "bad-date.txt", text.encode())
    assert error.problem.line == 456 and "does not exist" in error.problem.message


def test_header_and_last_line_must_agree(cr_ja: Path, tmp_path: Path) -> None:
    text = (cr_ja / START).read_text(encoding="utf-8") + "このルールは2026年2月6日から有効です。\n"
    error = _refused(tmp_path, "disagree.txt", text.encode())
    assert error.problem.line == 550 and "2026-02-06" in error.problem.message


def test_damaged_and_truncated_utf8_are_refused(cr_ja: Path, tmp_path: Path) -> None:
    data = (cr_ja / PART_117).read_bytes()
    broken = bytearray(data)
    at = data.index(b"117.3b")
    broken[at + 20 : at + 22] = b"\xff\xfe"
    error = _refused(tmp_path, "damaged.txt", bytes(broken))
    line = data[:at].count(b"\n") + 1
    assert error.problem.line == line and "damaged" in error.problem.message
    cut = data[: data.index("。".encode(), len(data) // 2) + 1]
    error = _refused(tmp_path, "truncated.txt", cut)
    assert "truncated" in error.problem.message and error.problem.line == cut.count(b"\n") + 1


def test_a_part_without_date_takes_the_file_name(cr_ja: Path, tmp_path: Path) -> None:
    (doc,) = read_source(cr_ja / PART_117)
    assert doc.date == "2026-01-16"
    assert any("taken from the file's name" in p.message for p in doc.problems)
    path = tmp_path / "excerpt.txt"
    path.write_bytes((cr_ja / PART_117).read_bytes())
    undated: SourceDoc = read_source(path)[0]
    assert undated.date is None and undated.kind == "cr-partial"


def test_the_four_excerpts_in_one_file(cr_ja: Path, tmp_path: Path) -> None:
    """One file holding the four excerpts: the lines printed twice (116-117.1a) are read once,
    their examples too, and the glossary is recognised by its headings."""
    path = tmp_path / "ja-all.txt"
    path.write_text("\n".join((cr_ja / n).read_text("utf-8") for n in EXCERPTS), "utf-8")
    (doc,) = read_source(path)
    counted = [_counted(cr_ja / name) for name in EXCERPTS]
    assert len({n for r in doc.rules if "." in (n := r.number)}) == 398
    assert sum(len(r.examples) for r in doc.rules) == sum(c[1] for c in counted)
    assert len(doc.glossary) == 220 and doc.date == "2026-01-16"
    repeated = [p for p in doc.problems if "printed again" in p.message]
    assert len(repeated) == 19 and all("same text, read once" in p.message for p in repeated)


def test_a_whole_translation_is_a_full_text(cr_ja: Path, tmp_path: Path) -> None:
    """Header, contents, every rule the contents list, 用語集, クレジット, the last line: "cr"."""
    start = _raw_lines(cr_ja / START)
    glossary = _raw_lines(cr_ja / GLOSSARY)
    credits = glossary.index("クレジット")
    title = start.index("マジック：ザ・ギャザリング　総合ルール")
    text = [
        *start[: start.index("もくじ") + 1],
        *["0. はじめに", "1. ゲームの考え方", "116. 特別な処理", "117. タイミングと優先権"],
        "10. 用語集",
        *start[title : start.index("100. 原則", title)],
        *_raw_lines(cr_ja / PART_117),
        "用語集",
        *glossary[:credits],
        *glossary[credits:],
    ]
    path = tmp_path / "whole.txt"
    path.write_text("\n".join(text), encoding="utf-8")
    (doc,) = read_source(path)
    assert (doc.kind, doc.date, doc.version) == ("cr", "2026-01-16", "2026-01-16")
    assert [r.number for r in doc.rules][:3] == ["1", "116", "116.1"]
    assert len(doc.glossary) == 220 and doc.glossary[0].term == "能力"
    # Without its credits, it is a part.
    path.write_text("\n".join(text[: len(text) - len(glossary) + credits]), encoding="utf-8")
    assert read_source(path)[0].kind == "cr-partial"
