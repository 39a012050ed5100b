"""Browser tests of issue 28 (Chromium): an old edition's contents and its rules on one page, a
tournament-rules page, the old-number notice, and the search box's suggestions."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import serving, watched_tab

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live_server(web_instance: Path) -> Iterator[str]:
    """waitress serving the built instance on a free loopback port (tests/web/conftest.py)."""
    with serving(web_instance, "/en/") as url:
        yield url


@pytest.fixture
def tab(chromium_browser, live_server: str, request: pytest.FixtureRequest) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """A fresh page; a screenshot is kept on failure, JavaScript errors fail the test."""
    yield from watched_tab(chromium_browser, live_server, request, 15_000)


def test_an_old_editions_contents_and_its_rules_on_one_page(cr_en_dir, tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/en/rules/?edition=2019-06-14")
    expect(tab).to_have_url(re.compile(r"/en/editions/en-2019-06-14/rules/$"))
    # one number per entry: the list draws none of its own
    first = tab.locator("ol.toc > li").first
    assert first.evaluate("li => getComputedStyle(li).listStyleType") == "none"
    tab.get_by_role("link", name=re.compile("^116\\. Timing and Priority")).click()
    expect(tab).to_have_url(re.compile(r"/en/en-2019-06-14/rules/116$"))
    tab.go_back()
    tab.locator("a.all-rules").click()
    expect(tab).to_have_url(re.compile(r"/en/editions/en-2019-06-14/rules/all$"))
    rule = tab.locator("#R1163b")
    expect(rule).to_contain_text("116.3b The active player receives priority")
    rule.get_by_role("link", name="116.3b").click()
    expect(tab).to_have_url(re.compile(r"/en/en-2019-06-14/rules/116\.3b$"))


def test_the_one_page_rules_in_japanese(cr_en_dir, tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/ja/editions/en-2019-07-12/rules/all#R1173b")
    expect(tab.locator("html")).to_have_attribute("lang", "ja")
    expect(tab.locator("#R1173b")).to_be_in_viewport()
    expect(tab.locator("div.all-rules")).to_have_attribute("lang", "en")


def test_a_tournament_rules_page_from_a_search_hit(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/fr/search?q=raccourci&kind=tournament")
    hit = tab.locator(".results a[href*='/fr/tournament/']").first
    expect(hit).to_be_visible()
    hit.click()
    expect(tab).to_have_url(re.compile(r"/fr/tournament/fr-mtr-4\.2-raccourcis#fr-4\.2-\d+$"))
    expect(tab.locator("#s-4\\.2 h2")).to_contain_text("MTR 4.2 Raccourcis de tournoi")
    anchor = tab.url.rpartition("#")[2]
    expect(tab.locator(f"li#{anchor.replace('.', chr(92) + '.')}")).to_be_in_viewport()


def test_the_old_number_notice(cr_en_dir, tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/r/117.3b?lang=en")
    expect(tab).to_have_url(re.compile(r"/en/rules/117\.3b$"))
    notice = tab.locator("p.notice", has_text="117.3b numbered another rule from")
    expect(notice).to_be_visible()
    notice.get_by_role("link", name="118.3b").click()
    expect(tab).to_have_url(re.compile(r"/en/rules/118\.3b$"))


def test_the_search_box_offers_suggestions(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/ja/")
    box = tab.locator("#q")
    box.fill("優")
    options = tab.locator(f"datalist#{box.get_attribute('list')} option")
    expect(options.first).to_have_attribute("value", re.compile("^優先権"))
    tab.goto("/en/glossary/")  # the header's search box
    tab.locator("#q-top").fill("prio")
    top = tab.locator(f"datalist#{tab.locator('#q-top').get_attribute('list')} option")
    expect(top.first).to_be_attached()
    values = top.evaluate_all("os => os.map(o => o.value.toLowerCase())")
    assert "priority" in values
