"""Chromium on the exported static site served by ``python -m http.server``: open a rule, search
« priorité » and 優先権 with Pagefind, follow a permalink of an old number, step through a trace."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.export.runner import export, pagefind_binary
from tests.conftest import static_host

from .conftest import need_for_browser, watched_tab

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def static_site(embedded_instance: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The embedded corpus exported with its search index, behind ``python -m http.server``."""
    need_for_browser(pagefind_binary() is not None, "pagefind[extended] is not installed")
    out = tmp_path_factory.mktemp("static") / "site"
    export(embedded_instance, out)
    yield from static_host(out)


@pytest.fixture
def tab(chromium_browser, static_site: str, request: pytest.FixtureRequest) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """A fresh French-speaking tab on the static site; a screenshot is kept on failure."""
    yield from watched_tab(chromium_browser, static_site, request, 15_000)


def test_root_picks_the_language_and_a_rule_opens(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/")
    expect(tab).to_have_url(re.compile(r"/fr/$"))
    tab.goto("/en/rules/117.3b")
    # http.server answers a folder URL with a redirect to its slash form, then the same page
    expect(tab).to_have_url(re.compile(r"/en/rules/117\.3b/?$"))
    expect(tab.locator("h1")).to_contain_text("117.3b")
    expect(tab.locator("article.main-rule p.text")).to_contain_text("priority")
    tab.get_by_role("link", name="日本語").click()
    expect(tab.locator("html")).to_have_attribute("lang", "ja")
    expect(tab).to_have_url(re.compile(r"/ja/rules/117\.3b/?$"))


def test_search_in_french_and_japanese_without_a_server(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/fr/")
    tab.get_by_label("Rechercher dans les règles").fill("priorité")
    tab.get_by_role("button", name="Rechercher").click()
    expect(tab).to_have_url(re.compile(r"/fr/search/?\?q=priorit"))
    first = tab.locator("#search-results > li h2 a").first
    expect(first).to_be_visible()
    expect(tab.locator("#search-results mark").first).to_contain_text(re.compile("priorit", re.I))
    expect(tab.locator(".static-note")).to_contain_text("linkify")
    first.click()
    expect(tab).to_have_url(re.compile(r"/fr/(rules|glossary|examples)/"))

    tab.goto("/ja/search?q=" + "優先権")
    hits = tab.locator("#search-results > li")
    expect(hits.first).to_be_visible()
    # Pagefind segments 優先権 into words and marks each; the excerpt holds the whole term
    expect(hits.first.locator(".snippet")).to_contain_text("優先権")
    expect(tab.locator("#search-results mark").first).to_contain_text("優先")
    expect(tab.locator("#search-status")).to_contain_text("優先権")

    # a rule number is offered as a rule to go to
    tab.locator("#q").fill("１１７．３ａ")
    tab.get_by_role("button", name="検索").click()
    go = tab.locator("#search-goto a")
    expect(go).to_be_visible()
    go.click()
    expect(tab).to_have_url(re.compile(r"/ja/rules/117\.3a/?$"))


def test_permalink_of_an_old_number(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/r/116.3b")  # Timing and Priority was 116 before July 2019
    expect(tab).to_have_url(re.compile(r"/fr/rules/117\.3b/?$"))
    expect(tab.locator("h1")).to_contain_text("116.3b")  # the French text, as printed
    tab.goto("/r/#R1173a")
    expect(tab).to_have_url(re.compile(r"/fr/rules/117\.3a/?$"))
    tab.goto("/en/rules/#R1173a")  # app.js: to /r/117.3a, a page the export has
    expect(tab).to_have_url(re.compile(r"/en/rules/117\.3a/?$"))
    tab.goto("/r/117.3a?lang=ja")
    expect(tab).to_have_url(re.compile(r"/ja/rules/117\.3a/?$"))


def test_step_through_an_example_trace(tab) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    tab.goto("/en/examples/")
    tab.locator("ul.examples-list a").first.click()
    steps = tab.locator(".trace .step")
    total = steps.count()
    assert total >= 3
    position = tab.locator(".trace-pos")
    # the page opens on the whole game; stepping is a choice
    expect(position).to_contain_text(str(total))
    expect(steps.nth(total - 1)).to_be_visible()
    forward = tab.get_by_role("button", name="Next step")
    forward.click()
    expect(position).to_have_text(re.compile(rf"^\D*1\D+{total}\s*$"))
    expect(steps.nth(1)).to_be_hidden()
    forward.click()
    forward.click()
    expect(position).to_have_text(re.compile(rf"^\D*3\D+{total}\s*$"))
    expect(steps.nth(2)).to_have_class(re.compile(r"\bcurrent\b"))
    tab.get_by_role("button", name="Previous step").click()
    expect(position).to_have_text(re.compile(rf"^\D*2\D+{total}\s*$"))
