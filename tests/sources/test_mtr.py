"""The Tournament Rules readers: French shortcut bullets (seed 004) and the English PDF text."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from kb.sources import mtr
from kb.sources.records import SourceDoc, SourceError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"
MTR_EN_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw" / "mtr-en"
MTR_FULL = MTR_EN_DIR / "mtr-en-2025-11-10.txt"
MTR_42 = MTR_EN_DIR / "mtr-en-2025-11-10-section-4.2.txt"


def shared(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"English MTR text not found at {path} (../shared/corpus-raw is absent)")
    return path


# ---- French bullets --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fr_doc(corpus_dir: Path) -> SourceDoc:
    path = corpus_dir / "sources" / "fr-mtr-4.2-raccourcis.txt"
    (doc,) = mtr.read_bullets(path, path.read_text(encoding="utf-8"))
    return doc


def test_fr_bullets_one_record_each(fr_doc: SourceDoc) -> None:
    assert (fr_doc.kind, fr_doc.lang) == ("mtr", "fr")
    keys = [t.key for t in fr_doc.tournament]
    assert keys == [f"4.2-{i}" for i in range(1, 12)]
    assert {t.section for t in fr_doc.tournament} == {"4.2"}
    assert fr_doc.tournament[0].text.startswith("L'assertion « Go »")
    assert fr_doc.tournament[5].line == 8  # the bullet after the broken one keeps its own line


def test_fr_broken_bullet_is_joined_and_flagged(fr_doc: SourceDoc) -> None:
    item = fr_doc.tournament[4]
    assert item.flags == ["lost-symbol"]
    assert item.line == 5
    assert "capacité avec dans son coût de mana sans préciser la valeur de X" in item.text
    assert "{X}" not in item.text
    flagged = [t for t in fr_doc.tournament if t.flags]
    assert flagged == [item]
    (problem,) = fr_doc.problems
    assert problem.line == 5 and problem.severity == "warning"
    assert str(problem).startswith(f"{fr_doc.path}:5: warning:")
    assert "{X}" in problem.message


def test_fr_bullets_fixture() -> None:
    path = FIXTURES / "mtr-fr-broken.txt"
    (doc,) = mtr.read_bullets(path, path.read_text(encoding="utf-8"))
    assert [t.flags for t in doc.tournament] == [[], ["lost-symbol"], []]
    assert doc.tournament[2].text.endswith("coût de 0. Un paragraphe sans puce qui suit.")
    messages = [(p.line, p.message) for p in doc.problems]
    assert any(line == 2 and "'avec' and 'dans'" in msg for line, msg in messages)
    assert any(line == 7 and "unbulleted" in msg for line, msg in messages)
    # No section in the name: assumed from the content, and said so.
    assert any("assumed 4.2" in msg for _, msg in messages)


def test_fr_bullets_section_from_manifest() -> None:
    path = FIXTURES / "mtr-fr-broken.txt"
    (doc,) = mtr.read_bullets(path, path.read_text(encoding="utf-8"))
    mtr.set_section(doc, "4.3")
    assert [t.key for t in doc.tournament] == ["4.3-1", "4.3-2", "4.3-3"]
    assert not any("assumed" in p.message for p in doc.problems)


def test_no_bullets_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "mtr-4.2.txt"
    path.write_text("Rien ici.\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"mtr-4\.2\.txt.*bullet"):
        mtr.read_bullets(path, path.read_text(encoding="utf-8"))


# ---- English PDF text ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def en_42() -> SourceDoc:
    path = shared(MTR_42)
    (doc,) = mtr.read_mtr_en(path, path.read_text(encoding="utf-8"))
    return doc


@pytest.fixture(scope="module")
def en_full() -> SourceDoc:
    path = shared(MTR_FULL)
    (doc,) = mtr.read_mtr_en(path, path.read_text(encoding="utf-8"))
    return doc


def test_section_file(en_42: SourceDoc) -> None:
    assert (en_42.kind, en_42.lang, en_42.date) == ("mtr", "en", "2025-11-10")
    keys = [t.key for t in en_42.tournament]
    assert keys[:6] == ["4.2", "4.2-p1", "4.2-p2", "4.2-p3", "4.2-p4", "4.2-p5"]
    assert keys[6:] == [f"4.2-{i}" for i in range(1, 12)]
    assert en_42.tournament[0].text == "Tournament Shortcuts"
    assert en_42.tournament[0].flags == ["heading"]
    # The date is not printed in the section file: taken from its name, with a warning.
    assert any("from the name" in p.message for p in en_42.problems)


def test_wrapped_lines_are_joined(en_42: SourceDoc) -> None:
    texts = {t.key: t.text for t in en_42.tournament}
    assert texts["4.2-p1"].startswith(
        "A tournament shortcut is an action taken by players to skip parts of the technical play "
        "sequence without explicitly announcing them."
    )
    # "Magic" stands alone on its line (italics in the PDF): joined back into the sentence.
    assert (
        "Certain conventional tournament shortcuts used in Magic are detailed below."
        in (texts["4.2-p5"])
    )
    assert texts["4.2-3"] == (
        "Whenever a player adds an object to the stack, they are assumed to be passing priority "
        "unless they explicitly announce that they intend to retain it."
    )
    assert all("\n" not in t and "[page" not in t and "•" not in t for t in texts.values())


def test_full_text(en_full: SourceDoc) -> None:
    assert en_full.date == "2025-11-10"
    assert en_full.problems == []
    headings = {t.key: t.text for t in en_full.tournament if "heading" in t.flags}
    assert headings["4"] == "Communication"
    assert headings["4.2"] == "Tournament Shortcuts"
    assert headings["1.10"] == "Players"
    assert headings["Appendix B"] == "Time Limits"
    sections = [k for k in headings if re.fullmatch(r"\d+\.\d+", k)]
    text = MTR_FULL.read_text(encoding="utf-8")
    toc = re.findall(r"(?m)^(\d+\.\d+) +\S.*?\.{4,}", text)
    assert sections == toc  # every section of the contents is found, in order, once
    bullets = [t for t in en_full.tournament if t.section == "4.2" and "-p" not in t.key]
    assert len(bullets) == 12  # the heading and the eleven shortcuts
    assert all("[page" not in t.text for t in en_full.tournament)


def test_numbered_items(en_full: SourceDoc) -> None:
    items = [t for t in en_full.tournament if t.section == "2.3" and t.key[4:].isdigit()]
    assert [t.text[:3] for t in items] == [f"{i}. " for i in range(1, 8)]
    assert items[0].text.endswith("add cards from their sideboards.")


def test_looks_like_mtr_en() -> None:
    assert mtr.looks_like_mtr_en(shared(MTR_42).read_text(encoding="utf-8"))
    assert not mtr.looks_like_mtr_en("4.2 is a number.\nNothing else.\n")


def test_section_titles_from_headings_or_the_document(
    en_full: SourceDoc, fr_doc: SourceDoc
) -> None:
    from kb.build.read import section_titles

    assert section_titles(en_full)["4.2"] == "Tournament Shortcuts"
    titled = dataclasses.replace(fr_doc, title="Raccourcis de tournoi (MTR 4.2)")
    assert section_titles(titled) == {"4.2": "Raccourcis de tournoi"}
    assert section_titles(dataclasses.replace(fr_doc, title=None)) == {}
