"""The playground in Chromium: open /en/play, edit the scenario, run it, read the trace and
follow a rule link; the permalink reopens it; an example's "Try it" opens its scenario."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import serving, watched_tab
from .test_play import BOLT

pytestmark = pytest.mark.browser

SCENARIO = BOLT  # the scenario the server-side tests run


@pytest.fixture(scope="module")
def play_server(web_instance: Path) -> Iterator[str]:
    """waitress serving the built instance on a free loopback port (tests/web/conftest.py)."""
    with serving(web_instance, "/en/play") as url:
        yield url


@pytest.fixture
def tab(chromium_browser, play_server: str, request: pytest.FixtureRequest) -> Iterator[object]:  # type: ignore[no-untyped-def]
    yield from watched_tab(chromium_browser, play_server, request, 30_000)


def test_edit_run_read_the_trace_and_follow_a_rule(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/en/play")
    expect(tab.locator("h1")).to_have_text("Playground")
    tab.get_by_label("Scenario").fill(SCENARIO + "\n? life Bob: 3")
    tab.get_by_role("button", name="Run").click()
    summary = tab.locator("#play-result .play-summary")
    expect(summary).to_contain_text("1 problem")
    expect(tab.locator(".play-problems")).to_contain_text("expected life Bob: 3, got 17")
    # the problem's line selects that line in the editor
    tab.locator(".play-problems a[data-line]").click()
    selected = tab.evaluate(
        "() => { const a = document.getElementById('scenario');"
        " return a.value.slice(a.selectionStart, a.selectionEnd); }"
    )
    assert selected == "? life Bob: 3"
    # edit: fix the expectation, run again with Ctrl+Enter
    tab.get_by_label("Scenario").fill(SCENARIO)
    tab.get_by_label("Scenario").press("Control+Enter")
    expect(summary).to_have_text(re.compile("every expectation held"))
    trace = tab.locator("#play-result ol.play-trace li")
    expect(trace.filter(has_text="Lightning Bolt").first).to_be_visible()
    # the address is now the permalink, and reopening it shows the same run
    expect(tab).to_have_url(re.compile(r"/en/play\?s=[A-Za-z0-9_-]+$"))
    permalink = tab.url
    link = tab.locator("#play-result a.ref[data-rule='117.3a']").first
    link.click()
    expect(tab).to_have_url(re.compile(r"/en/rules/117\.3a$"))
    tab.goto(permalink)
    expect(tab.get_by_label("Scenario")).to_have_value(SCENARIO)
    expect(tab.locator("#play-result .play-summary")).to_contain_text("every expectation held")


def test_try_it_from_an_example(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/fr/examples/")
    tab.locator("main a[href*='/fr/examples/']").first.click()
    script = tab.locator("details.script code").text_content() or ""
    tab.get_by_role("link", name="L’essayer dans le bac à sable").click()
    expect(tab).to_have_url(re.compile(r"/fr/play\?example="))
    expect(tab.locator("h1")).to_have_text("Bac à sable")
    first_line = script.strip().splitlines()[0]
    assert first_line in tab.get_by_label("Scénario").input_value()
    expect(tab.locator("#play-result ol.play-trace li").first).to_be_visible()
    # run it again from the page: the script's answer replaces the server's
    tab.get_by_role("button", name="Exécuter").click()
    expect(tab).to_have_url(re.compile(r"/fr/play\?s="))
    expect(tab.locator("#play-result ol.play-trace li").first).to_be_visible()
