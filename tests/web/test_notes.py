"""Search notes and error messages in the visitor's language: catalogs, search pages, error pages."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from kb.search import Note
from kb.search.notes import TEXTS
from kb.web.i18n import po_path
from kb.web.notes import NOTE_TEXTS, note_text

FIELD = re.compile(r"\{(\w+)(?:![rs])?\}")
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
NBSP, NNBSP = "\u00a0", "\u202f"


def catalog(locale: str) -> dict[str, str]:
    with po_path(locale).open("rb") as fp:
        cat = read_po(fp, locale=locale)
    return {m.id: m.string for m in cat if m.id and isinstance(m.id, str) and not m.fuzzy}


def test_every_note_code_has_a_message() -> None:
    assert set(NOTE_TEXTS) == set(TEXTS), "a note code of kb.search.notes has no web message"


@pytest.mark.parametrize("code", sorted(TEXTS))
def test_note_message_names_the_notes_params(code: str) -> None:
    assert set(PLACEHOLDER.findall(NOTE_TEXTS[code].msgid)) == set(FIELD.findall(TEXTS[code]))


@pytest.mark.parametrize("locale", ["fr", "ja"])
@pytest.mark.parametrize("code", sorted(TEXTS))
def test_every_note_code_is_translated(locale: str, code: str) -> None:
    msgid = NOTE_TEXTS[code].msgid
    translated = catalog(locale).get(msgid)
    assert translated and translated != msgid, f"{po_path(locale)}: translate {msgid!r}"


def test_french_typography() -> None:
    for msgid, string in catalog("fr").items():
        assert not re.search(r" [:;?!»]|« ", string), (msgid, string)
        assert "'" not in string, (msgid, string)
        assert "“" not in string and "”" not in string, (msgid, string)


def test_japanese_quotes_with_corner_brackets() -> None:
    for msgid, string in catalog("ja").items():
        if "%(" in msgid and re.search(r"[“”]", msgid):
            assert "「" in string, (msgid, string)


def test_note_rendering_per_locale() -> None:
    near = note_text(Note("nearby", {"numbers": ["117.1", "117.2"]}))
    assert near.local("en") == "Nearby: 117.1, 117.2."
    assert near.local("fr") == f"Règles voisines{NBSP}: 117.1, 117.2."
    assert near.local("ja") == "近いルール：117.1、117.2"
    lang = note_text(Note("no_rule_in_lang", {"number": "9", "lang": "en"}))
    assert lang.english() == "No rule 9 in the English editions."
    assert lang.local("fr") == "Aucune règle 9 dans les éditions en anglais."
    assert lang.local("ja") == "英語版にルール9はありません。"
    html = note_text(Note("did_you_mean", {"suggestion": "<b>"})).html("fr")
    assert str(html) == f"Vouliez-vous dire «{NBSP}&lt;b&gt;{NBSP}»{NNBSP}?"


# ---- pages -----------------------------------------------------------------------------------
def test_french_typo_search_says_did_you_mean_in_french(full_client: FlaskClient) -> None:
    # "mulligan" is in the official editions only, so the suggestion needs them.
    html = full_client.get("/fr/search?q=mulligann&kind=example").get_data(as_text=True)
    link = '<a href="/fr/search?q=mulligan&amp;kind=example">mulligan</a>'
    assert f'<p class="did-you-mean">Vouliez-vous dire «{NBSP}{link}{NBSP}»{NNBSP}?</p>' in html
    assert '<p class="notice">Aucun résultat.</p>' in html
    assert 'lang="en">No results' not in html and "Did you mean" not in html
    body = full_client.get("/fr/search.json?q=mulligann&kind=example").get_json()
    # The JSON keeps the English message and notes, and adds the French.
    assert body["message"] == "No results. Did you mean “mulligan”?"
    assert [n["code"] for n in body["notes"]] == ["no_results", "did_you_mean"]
    assert body["notes"][1]["params"] == {"suggestion": "mulligan"}
    assert body["notes"][1]["text_local"] == f"Vouliez-vous dire «{NBSP}mulligan{NBSP}»{NNBSP}?"
    assert body["message_local"] == "Aucun résultat."


def test_renumbered_note_uses_the_readers_title(full_client: FlaskClient) -> None:
    url = "/fr/search.json?q=116.3b&edition=en-2016-11-11"
    body = full_client.get(url).get_json()
    assert body["message"].endswith("is rule 117.3b (Timing and Priority) today.")
    assert body["message_local"] == (
        "La règle 116.3b de en-2016-11-11 est aujourd’hui la règle 117.3b (Timing et priorité)."
    )


def test_japanese_404_page_is_in_japanese(client: FlaskClient) -> None:
    response = client.get("/ja/rules/999.9")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert '<html lang="ja">' in html
    match = re.search(r'<p class="error"([^>]*)>([^<]*)</p>', html)
    assert match and match.group(1) == ""  # the page's language, not lang="en"
    assert match.group(2).endswith("ルール999.9はありません。")
    assert "見つかりません" in html


def test_error_json_keeps_english_and_adds_local(client: FlaskClient) -> None:
    body = client.get("/ja/rules/999.9.json").get_json()
    assert body["error"].startswith("No rule 999.9 in ")
    assert body["error_local"].endswith("ルール999.9はありません。")
    fr = client.get("/fr/search.json?q=x&page=0").get_json()
    assert fr["error"] == "The page must be a number from 1 to 500."
    assert fr["error_local"] == "La page doit être un nombre de 1 à 500."


@pytest.mark.parametrize(
    ("url", "status", "french"),
    [
        ("/fr/search?q=x&lang=de", 400, f"Langue «{NBSP}de{NBSP}» inconnue{NBSP}: utilisez"),
        ("/fr/search?q=x&kind=carte", 400, f"Type «{NBSP}carte{NBSP}» inconnu{NBSP}:"),
        ("/fr/nowhere/at/all", 404, "Aucune page à cette adresse."),
        ("/fr/glossary/zzzz", 404, f"Pas d’entrée «{NBSP}zzzz{NBSP}» dans le glossaire."),
    ],
)
def test_french_error_pages(client: FlaskClient, url: str, status: int, french: str) -> None:
    response = client.get(url)
    assert response.status_code == status
    assert french in response.get_data(as_text=True)
