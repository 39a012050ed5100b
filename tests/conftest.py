"""Shared fixtures: where the shared official texts are, and the paths of the embedded corpus."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.base.paths import CORPUS_DIR

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


CR_TEMPLATE = """Magic: The Gathering Comprehensive Rules

These rules are effective as of {date}.

Introduction

A test edition written for the kb project in the layout of the official text.

Contents

1. Game Concepts
100. General
117. Timing and Priority
Glossary
Credits

1. Game Concepts

100. General

100.1. These rules apply to any game with two or more players.

100.1a A two-player game begins with only two players.

117. Timing and Priority

117.1. Unless a spell or ability says otherwise, a player may cast spells only while holding priority.

117.3b The active player receives priority after a spell or ability resolves.

117.4. {marker}

Glossary

Priority
Which player can take actions at a given moment. See rule 117, "Timing and Priority."

Credits

Written for the tests of the kb project.
"""


def _write_edition(
    folder: Path, date: str, human: str, marker: str = "A rule of the test."
) -> Path:
    """A small complete English edition dated ``date`` (ISO) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"MagicCompRules-{date}.txt"
    path.write_text(CR_TEMPLATE.format(date=human, marker=marker), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def write_edition():
    """``write_edition(folder, "2031-02-01", "February 1, 2031", marker=...)``: a small complete
    English edition of that date (rules 100, 117 with 117.4 reading ``marker``, a glossary)."""
    return _write_edition


def static_host(folder: Path) -> Iterator[str]:
    """``python -m http.server`` over ``folder`` on a free 127.0.0.1 port (the simplest static host
    there is), polled until it answers; for a fixture to ``yield from``."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    process = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            with urllib.request.urlopen(url + "/robots.txt", timeout=1):
                break
        except OSError:
            time.sleep(0.05)
    else:
        process.kill()
        pytest.fail("http.server never answered")
    yield url
    process.terminate()
    process.wait(timeout=10)
