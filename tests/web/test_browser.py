"""Browser tests: Debian's Chromium driven by Playwright against a live waitress server."""

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
    """A fresh page (French first, as a French visitor); a screenshot is kept on failure."""
    yield from watched_tab(chromium_browser, live_server, request, 10_000)


def test_search_open_hover_switch_history(cr_en_dir, tab) -> None:  # type: ignore[no-untyped-def]
    # The embedded French quote's top hits cite no resolvable rule; the official editions do.
    from playwright.sync_api import expect

    tab.goto("/")
    expect(tab).to_have_url(re.compile(r"/fr/$"))
    tab.get_by_label("Rechercher dans les règles").fill("priorité")
    tab.get_by_role("button", name="Rechercher").click()
    expect(tab).to_have_url(re.compile(r"/fr/search\?q=priorit"))
    tab.select_option("#f-lang", "fr")
    tab.locator("form.search-main button[type=submit]").click()
    first = tab.locator("ol.results > li h2 a").first
    expect(first).to_contain_text("priorité")
    first.click()
    # the French quote is of the 2010-2019 numbering (116), its pages are those of rule 117
    expect(tab).to_have_url(re.compile(r"/fr/rules/117(\.\d+[a-z]?)?$"))
    number = tab.url.rsplit("/", 1)[1]
    expect(tab.locator("h1")).to_contain_text("116" + number[3:])

    refs = tab.locator("main a.ref:visible")
    if refs.count() == 0:  # a subrule citing nothing: its parent rule does
        tab.locator("nav.crumbs a").last.click()
        expect(tab).to_have_url(re.compile(r"/fr/rules/117(\.\d+)?$"))
        number = tab.url.rsplit("/", 1)[1]
    ref = refs.first
    target = ref.get_attribute("data-rule")
    ref.hover()
    popover = tab.locator("#popover")
    expect(popover).to_be_visible()
    expect(popover).to_contain_text(target)

    tab.get_by_role("link", name="日本語").click()
    expect(tab).to_have_url(re.compile(rf"/ja/rules/{re.escape(number)}$"))
    expect(tab.locator("html")).to_have_attribute("lang", "ja")

    # History is shown open (it was a collapsed <details> whose marker the stylesheet hid)
    history = tab.locator("section#history")
    renumbered = history.locator(".renumbered").first
    expect(renumbered).to_be_visible()
    expect(renumbered).to_have_text(f"116{number[3:]} → {number}")


def test_anchor_permalink_is_mapped_by_the_script(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/r/#R1173a")
    expect(tab).to_have_url(re.compile(r"/fr/rules/117\.3a$"))
    expect(tab.locator("h1")).to_contain_text("116.3a")


def test_step_through_an_example_trace(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/ja/examples/")
    tab.locator("ul.examples-list a").first.click()
    steps = tab.locator(".trace .step")
    total = steps.count()
    assert total >= 3
    position = tab.locator(".trace-pos")
    # the page opens on the whole game (it opened on step 1 of 25), stepping is a choice
    expect(position).to_have_text(f"全{total}ステップ")
    expect(steps.nth(total - 1)).to_be_visible()
    expect(tab.locator("details.script pre")).to_be_hidden()
    tab.get_by_role("button", name="次のステップ").click()
    expect(position).to_have_text(f"ステップ 1 / {total}")
    expect(steps.nth(1)).to_be_hidden()
    tab.get_by_role("button", name="次のステップ").click()
    tab.get_by_role("button", name="次のステップ").click()
    expect(position).to_have_text(f"ステップ 3 / {total}")
    expect(steps.nth(2)).to_have_class(re.compile(r"\bcurrent\b"))
    expect(steps.nth(3)).to_be_hidden()
    tab.get_by_role("button", name="前のステップ").click()
    expect(position).to_have_text(f"ステップ 2 / {total}")
    tab.get_by_role("button", name="すべて表示").click()
    expect(steps.nth(total - 1)).to_be_visible()


def test_phone_width_and_copy_link(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.set_viewport_size({"width": 360, "height": 740})
    for page in ("/en/search?q=can+I+respond+to+a+land", "/fr/glossary/", "/en/rules/117"):
        tab.goto(page)
        # Nothing sticks out: a fieldset or a menu wider than the screen would.
        width = tab.evaluate(
            "Math.max(...[...document.querySelectorAll('body *')]"
            ".map(e => e.getBoundingClientRect().right))"
        )
        assert width <= 360, f"{page} is wider than a phone ({width:.0f}px)"
    button = tab.get_by_role("button", name="Copy link")
    expect(button).to_be_visible()
    tab.keyboard.press("Tab")
    expect(tab.locator(":focus")).to_have_text("Skip to content")


def test_compare_any_two_editions_with_the_selector(cr_en_dir, tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/en/editions/")
    form = tab.locator("form.compare").first
    form.locator("select[name=from]").select_option("en-2011-09-30")
    form.locator("select[name=to]").select_option("en-2025-11-14")
    form.get_by_role("button", name="Show the changes").click()
    expect(tab).to_have_url(re.compile(r"/en/editions/en-2011-09-30\.\.en-2025-11-14$"))
    # edits lead, with their titles and word diffs; the long list of pure moves is folded
    headings = tab.locator("main h2").all_inner_texts()
    assert [h.split(" (")[0] for h in headings] == [
        "Edited",
        "Created",
        "Deleted",
        "Moved without other change",
    ]
    expect(tab.locator("ul.edited .diff").first).to_be_visible()
    expect(tab.locator("ul.edited .change-title").first).not_to_be_empty()
    moves = tab.locator("details.moves")
    expect(moves.locator("ul.moved")).to_be_hidden()
    moves.locator("summary").click()
    expect(moves.locator("ul.moved li").first).to_be_visible()
    tab.get_by_role("link", name="Compare the other way").click()
    expect(tab).to_have_url(re.compile(r"/en/editions/en-2025-11-14\.\.en-2011-09-30$"))


def test_untranslated_titles_are_marked(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/fr/rules/")
    marks = tab.locator("ol.toc abbr.lang-mark")
    expect(marks.first).to_be_visible()
    expect(tab.locator("p.toc-legend")).to_be_visible()
    # every title in another language than the page's carries a mark, and only those
    foreign = tab.locator("ol.toc span[lang]:not([lang=fr])")
    assert foreign.count() == marks.count() > 0


def test_an_examples_diff_shows_one_example_a_line(cr_en_dir, tab) -> None:  # type: ignore[no-untyped-def]
    # 111.4's 2025-11-14 row: an edit in its examples, one per line in the diff (it read as one
    # paragraph while .diff had no white-space rule).
    tab.goto("/en/rules/111.4")
    diff = tab.locator(".history-table .diff", has_text="Minsc").first
    diff.evaluate("el => el.closest('details')?.setAttribute('open', '')")
    lines = [line for line in diff.evaluate("el => el.innerText").split("\n") if line.strip()]
    assert lines[0].startswith("Examples — Dwarven Reinforcements"), lines
    assert [line.split()[0] for line in lines[1:]] == ["Minsc,", "Spitting"]
