"""Issue 28.6, the search box: a rule number typed opens the rule in the locale's language, and
suggestions complete in every language (Japanese: 優 -> 優先権)."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient


@pytest.mark.parametrize(
    ("locale", "query", "target"),
    [
        ("en", "117.3b", "/en/rules/117.3b"),
        ("fr", "117.3b", "/fr/rules/117.3b"),
        ("ja", "ルール117.3b", "/ja/rules/117.3b"),
        ("fr", "R1173b", "/fr/rules/117.3b"),
    ],
)
def test_a_typed_rule_number_opens_the_rule(
    real_client: FlaskClient, locale: str, query: str, target: str
) -> None:
    response = real_client.get(f"/{locale}/search", query_string={"q": query})
    assert response.status_code == 302
    assert response.headers["Location"] == target


def test_the_french_reader_gets_the_french_text(real_client: FlaskClient) -> None:
    page = real_client.get(
        "/fr/search", query_string={"q": "117.3b"}, follow_redirects=True
    ).get_data(as_text=True)
    assert 'lang="fr"' in page and "Le " in page and "joueur actif" in page


@pytest.mark.parametrize(
    "args",
    [
        {"q": "117.3b", "kind": "rules"},  # a filtered search lists
        {"q": "117.3a-c"},  # a range lists
        {"q": "999.9z"},  # no such rule: the search says so
        {"q": "priority"},
    ],
)
def test_other_queries_list_results(real_client: FlaskClient, args: dict[str, str]) -> None:
    assert real_client.get("/en/search", query_string=args).status_code == 200


def test_the_json_twin_still_lists(real_client: FlaskClient) -> None:
    body = real_client.get("/en/search.json", query_string={"q": "117.3b"}).get_json()
    assert body["ok"] and body["total"] >= 1


def test_japanese_suggestions_complete_one_character(real_client: FlaskClient) -> None:
    q, found = real_client.get("/ja/suggest", query_string={"q": "優"}).get_json()
    assert q == "優" and "優先権" in found


def test_the_opensearch_description_declares_the_suggestions(real_client: FlaskClient) -> None:
    """app.js finds /suggest through it (a static export declares none and fetches nothing)."""
    xml = real_client.get("/fr/opensearch.xml").get_data(as_text=True)
    assert 'type="application/x-suggestions+json"' in xml and "/fr/suggest?q=" in xml


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("/en/rules/999.9", "No rule 999.9 in the English edition of"),
        ("/fr/rules/999.9", "Aucune règle 999.9 dans l’édition en anglais du"),
    ],
)
def test_the_404_names_the_edition_by_its_date(
    real_client: FlaskClient, url: str, words: str
) -> None:
    response = real_client.get(url)
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert words in page
    edition = real_client.get("/en/rules/999.9.json").get_json()["error"]
    assert " in en-" not in edition and "in the English edition of" in edition


@pytest.mark.parametrize("url", ["/en/search?q=%ED%A0%80", "/fr/search.json?q=a%ED%A0%80b"])
def test_a_lone_surrogate_query_is_refused_not_shown_percent_encoded(
    real_client: FlaskClient, url: str
) -> None:
    response = real_client.get(url)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert 'value="%ED%A0%80"' not in page and "not valid UTF-8" in page


def test_a_typed_percent_sign_is_a_query(real_client: FlaskClient) -> None:
    assert real_client.get("/en/search?q=100%25").status_code == 200


def test_a_hit_names_its_edition_and_the_range_not_every_id(full_client: FlaskClient) -> None:
    body = full_client.get("/en/search.json", query_string={"q": "priority"}).get_json()
    hit = body["groups"][0]["hits"][0]
    span = hit["editions"]
    assert set(span) == {"first", "last", "count"} and span["count"] >= 6
    assert span["first"]["id"] == "en-2011-09-30" and span["last"]["id"] == hit["edition"]
    assert span["first"]["label"] == "Edition of September 30, 2011"


def test_pasing_suggests_passing(real_client: FlaskClient) -> None:
    body = real_client.get("/en/search.json", query_string={"q": "pasing"}).get_json()
    assert body["suggestion"]["query"] == "passing"
