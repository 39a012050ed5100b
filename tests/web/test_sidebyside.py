"""Reading side by side (/<locale>/compare/<number>): rows per English rule, the counterpart of
each other language beside it or a "not translated" cell, its JSON twin and bad input."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient


def _rows(client: FlaskClient, url: str) -> dict[str, list[str | None]]:
    """number -> the number shown in each column (None: not translated)."""
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    data = response.json
    assert data is not None and data["ok"] is True
    return {
        row["number"]: [None if c["missing"] else c["number"] for c in row["cells"]]
        for row in data["rows"]
    }


def test_json_twin_pairs_each_english_rule_with_its_counterparts(client: FlaskClient) -> None:
    rows = _rows(client, "/en/compare/117.json?langs=en,ja")
    assert list(rows) == ["117", "117.1", "117.3", "117.3a", "117.3b", "117.5"]
    assert rows["117.3a"] == ["117.3a", "117.3a"]
    assert rows["117.1"] == ["117.1", None] and rows["117.5"] == ["117.5", None]
    # French follows the 2010-2019 numbering (116): its own numbers, in the rows of 117
    three = _rows(client, "/en/compare/117.json")
    assert three["117.3b"] == ["117.3b", "116.3b", "117.3b"]
    assert three["117.5"] == ["117.5", None, None]
    data = client.get("/fr/compare/117.json?langs=ja,fr").json
    assert data["langs"] == ["ja", "fr"] and [c["lang"] for c in data["columns"]] == ["ja", "fr"]
    assert data["title_local"] == "Timing et priorité"


def test_html_marks_missing_translations_and_anchors_rows(client: FlaskClient) -> None:
    html = client.get("/fr/compare/117?langs=en,ja").get_data(as_text=True)
    assert 'id="R1173a"' in html and 'id="R1175"' in html
    assert html.count('class="missing"') == 2 and "Non traduite" in html
    assert "Côte à côte" in html and 'lang="ja"' in html
    # the switcher keeps the rule and the columns (the row's anchor: sidebyside.js)
    assert 'href="/ja/compare/117?langs=en,ja" hreflang="ja"' in html
    assert "sidebyside.js" in html


@pytest.mark.parametrize(
    ("locale", "label"), [("en", "Side by side"), ("fr", "Côte à côte"), ("ja", "対訳")]
)
def test_rule_and_section_pages_link_to_it(client: FlaskClient, locale: str, label: str) -> None:
    for number in ("117.3", "1"):
        html = client.get(f"/{locale}/rules/{number}").get_data(as_text=True)
        assert f'<a class="compare" href="/{locale}/compare/{number}">{label}</a>' in html
    section = client.get(f"/{locale}/compare/1.json").json
    assert section["kind"] == "section"


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/en/compare/117.json?langs=en,de", 400),
        ("/en/compare/117.json?langs=en", 400),
        ("/en/compare/117.json?langs=en,en", 400),
        ("/en/compare/117.json?langs=en,fr,ja,en", 400),
        ("/en/compare/117.json?langs=" + "x" * 300, 400),
        ("/en/compare/999.9.json", 404),
        ("/en/compare/banana.json", 404),
        ("/en/compare/" + "1" * 200 + ".json", 404),
    ],
)
def test_bad_input_is_a_clear_error(client: FlaskClient, url: str, status: int) -> None:
    response = client.get(url)
    assert response.status_code == status
    assert response.json["ok"] is False and response.json["error"]  # type: ignore[index]
    page = client.get(url.replace(".json", ""), headers={"Accept-Language": "fr"})
    assert page.status_code == status and "<html" in page.get_data(as_text=True)


def test_bad_langs_are_said_in_the_readers_language(client: FlaskClient) -> None:
    body = client.get("/ja/compare/117?langs=de,xx").get_data(as_text=True)
    assert "langs には" in body and "de,xx" in body


def test_other_spellings_and_old_numbers_redirect(client: FlaskClient) -> None:
    response = client.get("/en/compare/117.03b.json?langs=en,ja")
    assert response.status_code == 301
    assert response.headers["Location"] == "/en/compare/117.3b.json?langs=en,ja"
    old = client.get("/fr/compare/116.3b")  # the 2019-06-14 number of 117.3b
    assert old.status_code == 301 and old.headers["Location"] == "/fr/compare/117.3b"
