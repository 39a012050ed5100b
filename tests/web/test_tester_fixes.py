"""Defects a tester found on the site (each test failed before its fix)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.knowledge.model import Edition, KnowledgeBase, Rule
from kb.web import create_app

from .conftest import sample_kb

#: An English edition where 116.3b was another rule (paying life, 118.3b today).
OLDEST = "en-2009-07-11"


def _with_older_meaning(kb: KnowledgeBase) -> KnowledgeBase:
    """The hand-made base plus an older complete English edition whose 116.3b is another rule,
    so that 116.3b named two rules over time (as it did from 2009 to 2010)."""
    kb.editions[OLDEST] = Edition(
        OLDEST, "en", "2009-07-11", "full", OLDEST, ["cr-2009-07-11.txt"], title="CR"
    )
    text = "If a cost includes paying life, the player pays that much life."
    kb.rules[OLDEST] = {
        "116.3b": Rule(
            edition=OLDEST,
            lang="en",
            number="116.3b",
            kind="subrule",
            text=text,
            canonical="118.3b",
        )
    }
    kb.concordance.setdefault("118.3b", {})[OLDEST] = "116.3b"
    return kb


@pytest.fixture
def meanings_client(tmp_path: Path) -> Iterator[FlaskClient]:
    """A client of the app over :func:`_with_older_meaning`."""
    app: Flask = create_app(
        {"INSTANCE": tmp_path, "KB": _with_older_meaning(sample_kb()), "TESTING": True}
    )
    yield app.test_client()
    app.extensions["kb_search"].close()


# ---- 3. a French reader reached by an old number gets ?via= and its notice ----------------------
@pytest.mark.parametrize("locale", ["en", "fr", "ja"])
@pytest.mark.parametrize("path", ["/r/116.3b?lang={locale}", "/{locale}/rules/116.3b"])
def test_an_old_number_keeps_via_in_every_locale(
    meanings_client: FlaskClient, locale: str, path: str
) -> None:
    response = meanings_client.get(path.format(locale=locale))
    assert response.status_code == 302
    # French has a text of 116.3b (fr-2019-06-14) but no complete edition: the English
    # numbering history still holds for its reader.
    assert response.headers["Location"] == f"/{locale}/rules/117.3b?via=116.3b"


def test_accept_language_fr_keeps_via(meanings_client: FlaskClient) -> None:
    response = meanings_client.get("/r/116.3b", headers={"Accept-Language": "fr"})
    assert response.headers["Location"] == "/fr/rules/117.3b?via=116.3b"


@pytest.mark.parametrize("locale", ["en", "fr", "ja"])
def test_the_via_notice_names_the_other_rule_in_every_locale(
    meanings_client: FlaskClient, locale: str
) -> None:
    page = meanings_client.get(f"/{locale}/rules/117.3b.json?via=116.3b").get_json()
    notices = page["page"]["numbering"]
    assert [(n["link"], n["url"]) for n in notices] == [("118.3b", f"/{locale}/rules/118.3b")]
    assert "116.3b" in notices[0]["text"]


def test_no_via_without_another_meaning(client: FlaskClient) -> None:
    # In the plain hand-made base 116.3b only ever named the priority rule: no ?via=.
    assert client.get("/r/116.3b?lang=fr").headers["Location"] == "/fr/rules/117.3b"
    page = client.get("/fr/rules/117.3b.json?via=116.3b").get_json()
    assert page["page"]["numbering"] == []


# ---- 1. a date names the official edition, not a partial translation of that date -------------
@pytest.mark.parametrize(
    ("path", "status", "location"),
    [
        ("/ja/rules/702.19f?edition=2023-11-17", 301, "/ja/rules/702.19f"),
        ("/ja/rules/117.1?edition=2023-11-17", 301, "/ja/rules/117.1"),
        ("/r/702.19f?edition=2023-11-17&lang=ja", 302, "/ja/rules/702.19f"),
        ("/fr/rules/702.19f?edition=2023-11-17", 301, "/fr/rules/702.19f"),
        # Pinned: the English rule of that date, shown to the Japanese reader.
        ("/ja/2023-11-17/rules/702.19f", 301, "/ja/en-2023-11-17/rules/702.19f"),
        # A rule the Japanese page quotes stays the Japanese text of that date.
        ("/ja/2023-11-17/rules/116.2a", 301, "/ja/ja-2023-11-17/rules/116.2a"),
    ],
)
def test_a_date_names_the_official_edition(
    full_client: FlaskClient, path: str, status: int, location: str
) -> None:
    response = full_client.get(path)
    assert (response.status_code, response.headers.get("Location")) == (status, location)


def test_the_english_rule_of_that_date_is_shown_with_its_notice(full_client: FlaskClient) -> None:
    page = full_client.get("/ja/en-2023-11-17/rules/702.19f.json").get_json()
    assert page["number"] == "702.19f" and page["edition"] == "en-2023-11-17"
    assert page["page"]["fallback"] is True


def test_an_edition_id_still_names_the_partial_translation(full_client: FlaskClient) -> None:
    # Asked by its id, the Japanese page has no 702.19f: a 404 that says so.
    response = full_client.get("/ja/ja-2023-11-17/rules/702.19f")
    assert response.status_code == 404
    assert "2023年11月17日の日本語版" in response.get_data(as_text=True)
    # A number no edition of that date has is still a 404, naming the official edition (by
    # its language and date, not its id: issue 28).
    response = full_client.get("/ja/rules/999.9z.json?edition=2023-11-17")
    error = response.get_json()["error"]
    assert response.status_code == 404 and "English edition of November 17, 2023" in error


def test_without_an_official_edition_of_that_date_the_translation_answers(
    client: FlaskClient,
) -> None:
    # The hand-made base has no English edition of 2023-11-17: its Japanese text answers.
    assert client.get("/ja/rules/117.3b?edition=2023-11-17").status_code == 301
    response = client.get("/ja/rules/702.19f?edition=2023-11-17")
    assert response.status_code == 404
    assert "ja-2023-11-17" in response.get_data(as_text=True)


# ---- 2. a tournament rule an example cites is shown unlinked, not linked to a 404 --------------
def _mtr_client(tmp_path: Path) -> tuple[Flask, FlaskClient]:
    kb = sample_kb()
    ex = kb.examples[0]
    ex.rules = ["MTR 4.2", "117.3b"]
    ex.trace[1]["rules"] = ["117.3b", "MTR 4.2"]
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True})
    return app, app.test_client()


@pytest.mark.parametrize(
    "path", ["/en/examples/shock-response", "/fr/examples/", "/en/rules/117.3b", "/ja/rules/117.3b"]
)
def test_a_tournament_rule_citation_is_not_a_dead_link(tmp_path: Path, path: str) -> None:
    app, client = _mtr_client(tmp_path)
    try:
        html = client.get(path).get_data(as_text=True)
    finally:
        app.extensions["kb_search"].close()
    assert '<span class="ref">MTR 4.2</span>' in html
    assert "/rules/MTR" not in html and 'href="None"' not in html
    assert 'data-rule="117.3b">117.3b</a>' in html  # the game's rules stay linked


def test_a_tournament_rule_citation_has_no_url_in_json(tmp_path: Path) -> None:
    app, client = _mtr_client(tmp_path)
    try:
        body = client.get("/en/examples/shock-response.json").get_json()
    finally:
        app.extensions["kb_search"].close()
    links = body["example"]["rule_links"]
    assert links == [
        {"number": "MTR 4.2", "url": None},
        {"number": "117.3b", "url": "/en/rules/117.3b"},
    ]


def test_every_linked_rule_of_the_mtr_examples_is_a_page(full_client: FlaskClient) -> None:
    body = full_client.get("/en/examples/mtr-4-2-go.json").get_json()["example"]
    urls = [r["url"] for r in body["rule_links"]]
    urls += [r["url"] for step in body["trace"] for r in step["rules"]]
    # MTR 4.2 is cited, linked to its section of the tournament rules (issue 28)
    assert any(u and "/tournament/" in u and u.endswith("#s-4.2") for u in urls)
    for url in {u.split("#")[0] for u in urls if u}:
        assert full_client.get(url).status_code == 200, url


def test_linkify_reads_a_date_as_the_pages_do(full_client: FlaskClient) -> None:
    # The API resolves an old number as the rule page does: a date whose Japanese page lacks
    # the rule names the English edition of that date (kb.knowledge.lookup.rule_edition).
    body = {"text": "See rule 702.19f.", "lang": "ja", "edition": "2023-11-17"}
    refs = full_client.post("/api/linkify", json=body).get_json()["refs"]
    assert [(r["number"], r["canonical"]) for r in refs] == [("702.19f", "702.19f")]
    assert refs[0]["url"].endswith("/ja/rules/702.19f")
