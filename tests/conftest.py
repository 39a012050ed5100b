"""Shared fixtures: where the shared official texts are, and the paths of the embedded corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.paths import CORPUS_DIR

SHARED_RAW = Path(__file__).resolve().parents[1].parent / "shared" / "corpus-raw"
CR_EN_DIR = SHARED_RAW / "cr-en"
MTR_EN_DIR = SHARED_RAW / "mtr-en"


def shared_editions() -> list[Path]:
    """The official English editions in ../shared/corpus-raw/cr-en (empty where absent)."""
    return sorted(CR_EN_DIR.glob("*.txt")) if CR_EN_DIR.is_dir() else []


@pytest.fixture(scope="session")
def cr_en_dir() -> Path:
    """../shared/corpus-raw/cr-en, or skip: these texts are test data we must not copy in."""
    if not shared_editions():
        pytest.skip(f"official CR texts not found at {CR_EN_DIR} (../shared/corpus-raw is absent)")
    return CR_EN_DIR


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The embedded corpus shipped with the project."""
    return CORPUS_DIR
