"""Card fixtures: the small files written here (in every compression), the shared AtomicCards
file and the rules of the 2025-11-14 edition, both read once per session (skipped if absent)."""

from __future__ import annotations

import bz2
import gzip
import lzma
import zipfile
from pathlib import Path

import pytest

from kb.cards.rules_used import RuleIndex
from kb.knowledge.model import GlossaryEntry, Rule
from kb.sources.card_model import Card
from kb.sources.cards import read_cards
from kb.sources.cr_text import read_cr_text
from tests.conftest import CR_EN_DIR, SHARED_RAW

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cards"
SHARED_CARDS = SHARED_RAW / "cards" / "AtomicCards-2022-04-25.json.xz"
CR_2025 = CR_EN_DIR / "MagicCompRules-2025-11-14.txt"
COMPRESSIONS = ("none", "gzip", "xz", "bzip2", "zip")


def compressed(data: bytes, kind: str, folder: Path, name: str = "cards.dat") -> Path:
    """``data`` written to ``folder/name`` compressed as ``kind`` (the name says nothing)."""
    path = folder / name
    if kind == "none":
        path.write_bytes(data)
    elif kind == "gzip":
        path.write_bytes(gzip.compress(data))
    elif kind == "xz":
        path.write_bytes(lzma.compress(data))
    elif kind == "bzip2":
        path.write_bytes(bz2.compress(data))
    else:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("README", "not the cards")
            archive.writestr("inner.bin", data)
    return path


def rule_index_of(path: Path) -> RuleIndex:
    """A RuleIndex of an official text, through the kb.model objects a build would make."""
    doc = read_cr_text(path)
    rules = [Rule("en-test", "en", r.number, "rule", r.text, r.title) for r in doc.rules]
    glossary = [
        GlossaryEntry(
            "en-test",
            "en",
            g.term.lower(),
            g.term,
            g.definition,
            list(g.aliases),
            g.obsolete,
            list(g.see),
            list(g.rule_refs),
        )
        for g in doc.glossary
    ]
    return RuleIndex.from_rules(rules, glossary)


@pytest.fixture(scope="session")
def shared_cards() -> list[Card]:
    """Every card of the shared AtomicCards file, or skip: card texts are not in the project."""
    if not SHARED_CARDS.exists():
        pytest.skip(
            f"shared card file not found at {SHARED_CARDS} (../shared/corpus-raw is absent)"
        )
    return read_cards(SHARED_CARDS).cards


@pytest.fixture(scope="session")
def by_name(shared_cards: list[Card]) -> dict[str, Card]:
    """The shared cards by Oracle name."""
    return {card.name: card for card in shared_cards}


@pytest.fixture(scope="session")
def rule_index() -> RuleIndex:
    """The rules of the 2025-11-14 edition, or skip where the shared texts are absent."""
    if not CR_2025.exists():
        pytest.skip(f"official CR text not found at {CR_2025} (../shared/corpus-raw is absent)")
    return rule_index_of(CR_2025)
