"""What a new user met on the web (issue 12): each case failed before its fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.knowledge.model import ExampleInfo
from kb.web import create_app


@pytest.fixture(scope="module")
def embedded_app(embedded_instance: Path) -> Flask:
    """The app over the README's first build: the embedded corpus only, no official edition."""
    return create_app({"INSTANCE": embedded_instance, "TESTING": True})


@pytest.fixture
def embedded_client(embedded_app: Flask) -> FlaskClient:
    return embedded_app.test_client()


# ---- 1. contents of a base of quotes -------------------------------------------------------------
@pytest.mark.parametrize("path", ["/en/", "/en/rules/", "/fr/", "/ja/rules/"])
def test_contents_of_the_embedded_corpus_are_not_empty(
    embedded_client: FlaskClient, path: str
) -> None:
    html = embedded_client.get(path).get_data(as_text=True)
    assert "build the knowledge base first" not in html
    toc = re.search(r'<ol class="toc">.*?</section>', html, re.S)
    assert toc is not None
    # /en/rules/117 works: the contents link to it
    assert f'href="/{path[1:3]}/rules/117"' in toc.group(0)


# ---- 3. glossary suggestions ---------------------------------------------------------------------
def test_an_unknown_glossary_entry_suggests_distinct_near_entries(full_client: FlaskClient) -> None:
    body = full_client.get("/en/glossary/nonexistent.json").get_json()
    assert body["status"] == 404
    terms = [s["term"] for s in body["suggestions"]]
    assert terms.count("X") == 0 and len(terms) == len(set(terms))
    body = full_client.get("/en/glossary/stak.json").get_json()
    assert [s["term"] for s in body["suggestions"]][:1] == ["Stack"]
    # "APNAP" is a name of that concept in the term base: the entry itself, not a 404.
    response = full_client.get("/en/glossary/APNAP.json")
    assert response.status_code == 301
    assert response.headers["Location"].endswith("/en/glossary/apnap%20order.json")


# ---- 4. any two editions ------------------------------------------------------------------------
def test_any_two_editions_of_a_language_compare(full_client: FlaskClient) -> None:
    far = full_client.get("/en/editions/en-2011-09-30..en-2025-11-14.json")
    assert far.status_code == 200
    body = far.get_json()
    assert body["counts"]["edited"] > 100 and body["counts"]["moved"] > 100
    moved = {(c["old"], c["new"]) for c in body["changes"]["moved"]}
    assert ("116.3b", "117.3b") in moved
    back = full_client.get("/en/editions/en-2025-11-14..en-2011-09-30.json").get_json()
    assert back["backwards"] is True and back["counts"]["created"] == body["counts"]["deleted"]
    assert ("117.3b", "116.3b") in {(c["old"], c["new"]) for c in back["changes"]["moved"]}
    # edited and created rules carry a title (their own or their rule's)
    assert all("title" in c for c in body["changes"]["edited"] + body["changes"]["created"])


def test_the_comparison_form_and_dates_redirect_to_the_span(full_client: FlaskClient) -> None:
    response = full_client.get("/en/editions/?from=en-2016-11-11&to=en-2023-11-17")
    assert response.status_code == 303
    assert response.headers["Location"] == "/en/editions/en-2016-11-11..en-2023-11-17"
    response = full_client.get("/en/editions/2016-11-11..2023-11-17")
    assert response.status_code == 301
    assert response.headers["Location"] == "/en/editions/en-2016-11-11..en-2023-11-17"
    html = full_client.get("/en/editions/").get_data(as_text=True)
    assert html.count('<form class="compare"') >= 1 and 'name="from"' in html


@pytest.mark.parametrize(
    ("span", "status", "message"),
    [
        ("en-2011-09-30..en-1999-01-01", 404, "No edition “en-1999-01-01”."),
        ("a..b", 404, "No edition “a”."),
        ("en-2019-06-14", 404, "compare two editions of one language as FROM..TO"),
        ("en-2019-06-14..fr-fr-wiki-la-priorite", 400, "Compare two editions of one language"),
        ("en-2019-06-14..en-2019-06-14", 400, "Choose two different editions"),
    ],
)
def test_a_wrong_span_says_what_is_wrong(
    full_client: FlaskClient, span: str, status: int, message: str
) -> None:
    body = full_client.get(f"/en/editions/{span}.json").get_json()
    assert body["status"] == status and message in body["error"]


def test_pure_moves_fold_into_runs(full_client: FlaskClient) -> None:
    body = full_client.get("/en/editions/en-2019-06-14..en-2019-07-12.json").get_json()
    runs = body["move_runs"]
    assert sum(r["count"] for r in runs) == body["counts"]["moved"]
    assert len(runs) < body["counts"]["moved"] / 3
    html = full_client.get("/en/editions/en-2019-06-14..en-2019-07-12").get_data(as_text=True)
    # edits come first, the moves last and folded
    assert html.index('id="h-edited"') < html.index('id="h-created"') < html.index('id="h-moved"')
    assert '<details class="moves">' in html


# ---- 6. undated texts ----------------------------------------------------------------------------
@pytest.mark.parametrize("locale", ["en", "fr", "ja"])
def test_an_undated_quote_is_named_not_dated_unknown(
    embedded_client: FlaskClient, locale: str
) -> None:
    html = embedded_client.get(f"/{locale}/").get_data(as_text=True)
    for phrase in ("date unknown", "date inconnue", "日付不明"):
        assert phrase not in html
    assert "wiki" in re.search(r'<ul class="editions">.*?</ul>', html, re.S).group(0)  # type: ignore[union-attr]


# ---- 9. nearest rules, search pager --------------------------------------------------------------
def test_an_unknown_rule_suggests_its_neighbours(full_client: FlaskClient) -> None:
    body = full_client.get("/en/rules/999.9.json").get_json()
    near = [s["number"] for s in body["suggestions"]]
    assert near[0] == "9" and "900" not in near and all(n.startswith("905") for n in near[1:])


def test_the_search_pager_reaches_the_last_page(full_client: FlaskClient) -> None:
    html = full_client.get("/en/search?q=priority&page=3").get_data(as_text=True)
    pager = re.search(r'<nav class="pager".*?</nav>', html, re.S)
    assert pager is not None
    body = full_client.get("/en/search.json?q=priority&page=3").get_json()
    last = body["pages"]
    assert body["last_page"]["page"] == last > 8
    assert f'rel="last">Last ({last})</a>' in pager.group(0)
    assert 'rel="next"' in pager.group(0) and 'rel="prev"' in pager.group(0)


# ---- 10. examples -------------------------------------------------------------------------------
def test_examples_say_their_outcome_and_link_their_rules(real_client: FlaskClient) -> None:
    html = real_client.get("/en/examples/").get_data(as_text=True)
    assert "— passes" not in html and "— fails" not in html
    assert "✓ the engine plays it as written" in html
    assert re.search(
        r'<a class="ref" href="/en/rules/117\.3b" data-rule="117\.3b">117\.3b</a>', html
    )


def test_an_example_page_reads_as_a_game(real_client: FlaskClient) -> None:
    html = real_client.get("/en/examples/117-3b-active-player-after-resolution").get_data(
        as_text=True
    )
    prose = re.search(r'<div class="prose".*?</div>', html, re.S).group(0)  # type: ignore[union-attr]
    assert "```" not in prose and "players: Alice" not in prose and "<pre>" not in prose
    assert '<details class="script">' in html and "players: Alice, Bob" in html
    assert "<code>priority: Alice</code>" in html
    assert html.count('class="step"') > 5


def test_an_example_in_the_readers_language(tmp_path: Path, kb) -> None:  # type: ignore[no-untyped-def]
    ex: ExampleInfo = kb.examples[0]
    ex.titles = {"en": ex.title, "fr": "Après une résolution, le joueur actif reçoit la priorité"}
    ex.prose = {"en": "English prose.", "fr": "Le joueur **actif** reçoit la priorité (117.3b)."}
    client = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True}).test_client()
    fr = client.get(f"/fr/examples/{ex.id}").get_data(as_text=True)
    assert '<h1 lang="fr">Après une résolution' in fr and "lang-mark" not in fr.split("</h1>")[0]
    assert "Le joueur <strong>actif</strong>" in fr and 'href="/fr/rules/117.3b"' in fr
    ja = client.get(f"/ja/examples/{ex.id}").get_data(as_text=True)
    # no Japanese yet: the English, marked as such
    assert f'<h1 lang="en">{ex.title}' in ja and 'class="lang-mark"' in ja
    assert "English prose." in ja


def test_the_comparison_form_with_one_complete_edition(tmp_path: Path, kb) -> None:  # type: ignore[no-untyped-def]
    # one complete English text and an excerpt: the form offers those two (it raised an
    # IndexError looking for two complete texts, seen while a build was being published)
    from kb.knowledge.model import Edition

    del kb.editions["en-2019-06-14"]
    kb.editions["en-2024-07-30"] = Edition(
        "en-2024-07-30", "en", "2024-07-30", "partial", "en-2024-07-30", ["wiki.txt"]
    )
    client = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True}).test_client()
    body = client.get("/en/editions.json").get_json()
    english = next(g for g in body["languages"] if g["lang"] == "en")
    assert (english["compare_from"], english["compare_to"]) == ("en-2019-07-12", "en-2024-07-30")
    assert client.get("/en/editions/").status_code == 200
