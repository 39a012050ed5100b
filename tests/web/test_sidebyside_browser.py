"""Reading side by side in Chromium: section 117 of the official English edition beside the
official Japanese translation (ja-2026-01-16, excerpts), every Japanese 117.x next to its English
117.x; the language switcher keeps the row being read. Needs ../shared/corpus-raw (cr-en, cr-ja)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import SHARED_RAW

from .conftest import serving, watched_tab

pytestmark = pytest.mark.browser

CR_JA = SHARED_RAW / "cr-ja"
CR_EN = SHARED_RAW / "cr-en" / "MagicCompRules-2025-11-14.txt"
EXCERPT_117 = CR_JA / "CompRules-ja-20260116-excerpt-117.txt"


@pytest.fixture(scope="module")
def ja_instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The English edition of 2025-11-14 and the Japanese excerpts, built once (or skip)."""
    if not CR_EN.is_file() or not EXCERPT_117.is_file():
        pytest.skip(f"the official texts are not at {SHARED_RAW} (../shared/corpus-raw is absent)")
    from kb.build import build

    instance = tmp_path_factory.mktemp("sbs") / "instance"
    build(instance, [CR_EN, CR_JA])
    return instance


@pytest.fixture(scope="module")
def live_server(ja_instance: Path) -> Iterator[str]:
    """waitress serving the built instance on a free loopback port (tests/web/conftest.py)."""
    with serving(ja_instance, "/en/") as url:
        yield url


@pytest.fixture
def tab(chromium_browser, live_server: str, request: pytest.FixtureRequest) -> Iterator[object]:  # type: ignore[no-untyped-def]
    yield from watched_tab(chromium_browser, live_server, request, 10_000)


def _japanese_117() -> list[str]:
    """Every rule number 117.x the Japanese excerpt prints (117.1., 117.1a …)."""
    text = EXCERPT_117.read_text(encoding="utf-8")
    found = re.findall(r"^(117\.\d+[a-z]?)\.?\s", text, flags=re.M)
    return list(dict.fromkeys(found))


def test_section_117_in_en_and_ja_shows_every_pair(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    numbers = _japanese_117()
    assert len(numbers) > 15
    tab.goto("/en/rules/117")
    tab.get_by_role("link", name="Side by side").click()
    expect(tab).to_have_url(re.compile(r"/en/compare/117$"))
    tab.get_by_role("link", name="EN | JA", exact=True).click()
    expect(tab).to_have_url(re.compile(r"/en/compare/117\?langs=en,ja$"))
    headers = tab.locator("table.side-by-side-table thead th")
    expect(headers).to_have_count(2)
    expect(headers.nth(1)).to_contain_text("日本語")
    for number in numbers:
        row = tab.locator(f'tr[data-rule="{number}"]')
        expect(row).to_have_count(1)
        en, ja = row.locator('td[data-lang="en"]'), row.locator('td[data-lang="ja"]')
        expect(en.locator("a.num")).to_have_text(number)
        expect(ja.locator("a.num")).to_have_text(number)
        expect(ja).to_have_attribute("lang", "ja")
        expect(ja).not_to_have_class(re.compile("missing"))
        # Japanese text beside the English one, on the same line of the table
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", ja.inner_text()), number
        assert en.bounding_box()["y"] == ja.bounding_box()["y"], number  # type: ignore[index]
    expect(tab.locator('tr[data-rule="117"] td[data-lang="ja"]')).to_contain_text("優先権")


def test_a_missing_translation_is_marked_and_the_switcher_keeps_the_row(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/fr/compare/118?langs=en,ja")
    missing = tab.locator('tr[data-rule="118.1"] td[data-lang="ja"]')
    expect(missing).to_have_class(re.compile("missing"))
    expect(missing).to_contain_text("Non traduite")
    tab.goto("/fr/compare/117?langs=en,ja#R1173a")
    tab.locator("nav.langs a[hreflang=ja]").click()
    expect(tab).to_have_url(re.compile(r"/ja/compare/117\?langs=en,ja#R1173a$"))
    expect(tab.locator("h1")).to_contain_text("対訳")
    expect(tab.locator("#R1173a")).to_be_in_viewport()
