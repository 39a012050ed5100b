"""Defects a new user met: editions of two languages compared (CLI and web refuse alike), a
comparison form sent without its second edition, and language names left in English on French
and Japanese pages."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.web import create_app

EN, FR = "en-2024-07-30", "fr-fr-wiki-la-priorite"  # editions of the embedded corpus


@pytest.fixture(scope="module")
def client(embedded_instance: Path) -> Iterator:  # type: ignore[type-arg]
    app = create_app({"INSTANCE": embedded_instance, "PAGE_CACHE": False})
    yield app.test_client()
    app.extensions["kb_search"].close()


def test_concordance_refuses_two_languages_like_the_web(
    embedded_instance: Path, client, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    assert main(["concordance", EN, FR, "--instance", str(embedded_instance)], out=out) == 1
    err = capsys.readouterr().err
    assert err.startswith("kb: error: compare two editions of one language")
    assert "English" in err and "French" in err and out.getvalue() == ""
    web = client.get(f"/en/editions/{EN}..{FR}")
    assert web.status_code == 400 and b"Compare two editions of one language" in web.data
    # the same edition twice is refused by both too
    assert main(["concordance", EN, EN, "--instance", str(embedded_instance)], out=out) == 1
    assert "two different editions" in capsys.readouterr().err
    assert client.get(f"/en/editions/{EN}..{EN}").status_code == 400


@pytest.mark.parametrize("query", [f"from={EN}", f"to={EN}", f"from={EN}&to="])
def test_the_comparison_form_without_a_second_edition(client, query: str) -> None:  # type: ignore[no-untyped-def]
    answer = client.get(f"/en/editions/?{query}")
    assert answer.status_code == 400
    assert b"Choose a second edition to compare." in answer.data
    assert "No edition “”" not in answer.get_data(as_text=True)
    data = json.loads(client.get(f"/en/editions.json?{query}").data)
    assert data["status"] == 400 and "second edition" in data["error"]


@pytest.mark.parametrize(
    ("locale", "english", "french"), [("fr", "anglais", "français"), ("ja", "英語", "フランス語")]
)
def test_language_names_are_in_the_pages_language(
    client, locale: str, english: str, french: str
) -> None:  # type: ignore[no-untyped-def]
    page = client.get(f"/{locale}/glossary/priority").get_data(as_text=True)
    assert english in page and "English" not in page.split("<main", 1)[-1].split("</main>")[0]
    error = client.get(f"/{locale}/editions/{EN}..{FR}").get_data(as_text=True)
    assert english in error and french in error
    assert "English" not in error.split("<main", 1)[-1].split("</main>")[0]


# ---- API parameters are checked, each error naming the parameter -------------------------------
@pytest.mark.parametrize(
    ("name", "value"), [("maxwidth", "-5"), ("maxheight", "0"), ("maxwidth", "wide")]
)
def test_oembed_refuses_a_size_below_one_pixel(client, name: str, value: str) -> None:  # type: ignore[no-untyped-def]
    answer = client.get(f"/api/oembed?url=/en/rules/117.3b&{name}={value}")
    assert answer.status_code == 400
    assert f"'{name}' must be a whole number of pixels" in answer.get_json()["error"]
    fine = client.get(f"/api/oembed?url=/en/rules/117.3b&{name}=300")
    assert fine.status_code == 200 and fine.get_json()[name.removeprefix("max")] <= 300


def test_linkify_refuses_an_unknown_format(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.post("/api/linkify?format=pdf", json={"text": "See rule 117.3b."})
    assert answer.status_code == 400 and "use json or html" in answer.get_json()["error"]
    answer = client.post("/api/linkify", json={"text": "See rule 117.3b.", "format": "pdf"})
    assert answer.status_code == 400 and "“pdf”" in answer.get_json()["error"]
    html = client.post("/api/linkify?format=html", json={"text": "See rule 117.3b."})
    assert html.status_code == 200 and html.mimetype == "text/html"
    assert client.post("/api/linkify", json={"text": "x", "format": "json"}).status_code == 200


def test_linkify_says_lang_must_be_a_string(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.post("/api/linkify", json={"text": "See rule 117.3b.", "lang": ["en"]})
    error = answer.get_json()["error"]
    assert answer.status_code == 400 and error == "'lang' must be a string: en, fr or ja."


@pytest.mark.parametrize(
    ("path", "sentence"),
    [
        ("/fr/glossary/", "affiché en anglais"),
        ("/ja/glossary/", "英語で表示"),
        ("/ja/rules/117.1a", "英語で表示"),
        ("/fr/rules/117.1a", "seule édition de ce texte en français"),
        ("/ja/rules/117.1a", "（フランス語）"),
    ],
)
def test_every_sentence_names_a_language_in_the_pages_language(
    client, path: str, sentence: str
) -> None:  # type: ignore[no-untyped-def]
    assert sentence in client.get(path).get_data(as_text=True)
