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


@pytest.fixture(scope="session")
def embedded_instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An instance built once per test session from the embedded corpus alone."""
    from kb.build import build

    instance = tmp_path_factory.mktemp("embedded") / "instance"
    build(instance)
    return instance


@pytest.fixture(scope="session")
def full_instance(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path) -> Path:
    """An instance built once per session from the embedded corpus plus the six shared editions."""
    from kb.build import build

    instance = tmp_path_factory.mktemp("full") / "instance"
    build(instance, [cr_en_dir])
    return instance


@pytest.fixture(scope="session")
def full_kb(full_instance: Path):
    """The knowledge base of :func:`full_instance`."""
    from kb.build import load

    return load(full_instance)


@pytest.fixture(scope="session")
def embedded_kb(embedded_instance: Path):
    """The knowledge base of :func:`embedded_instance`."""
    from kb.build import load

    return load(embedded_instance)
