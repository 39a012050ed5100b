"""Issue 28's "every search hit kind has a URL that answers 200 and shows the hit" for the kinds
cards brought (issue 24): a card hit opens the card's page, a ruling hit the page of the card
whose ruling it is, with the ruling's words on it, in each language."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from kb.web import create_app

ATOMIC = Path(__file__).resolve().parents[1] / "fixtures" / "cards" / "atomic.json"


@pytest.fixture(scope="module")
def card_client(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from kb.build import build

    instance = tmp_path_factory.mktemp("card-hits") / "instance"
    build(instance, cards=ATOMIC)
    app = create_app({"INSTANCE": instance, "TESTING": True})
    yield app.test_client()
    app.extensions["kb_search"].close()


def _words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


@pytest.mark.parametrize("locale", ["en", "fr", "ja"])
@pytest.mark.parametrize(("query", "kind", "shown"), [
    ("Test Gryphon", "card", "Test Gryphon"),
    ("ruling written for the tests", "ruling", "A ruling written for the tests."),
])  # fmt: skip
def test_card_and_ruling_hits_open_a_page_that_shows_them(
    card_client, locale: str, query: str, kind: str, shown: str
) -> None:  # type: ignore[no-untyped-def]
    found = card_client.get(f"/{locale}/search.json", query_string={"q": query, "kind": kind})
    assert found.status_code == 200
    hits = [h for g in found.get_json()["groups"] for h in g["hits"]]
    assert hits and {h["kind"] for h in hits} == {kind}, hits
    first = hits[0]
    assert first["url"], first
    page = card_client.get(first["url"].split("#")[0], follow_redirects=True)
    assert page.status_code == 200, first["url"]
    assert shown in _words(page.get_data(as_text=True)), first["url"]
