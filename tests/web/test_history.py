"""A rule's history on the real build: one edition in a language is said, not an empty table."""

from __future__ import annotations

import re

from flask.testing import FlaskClient


def _history(html: str) -> str:
    found = re.search(r'<details class="history".*?</details>', html, re.S)
    assert found, "no history section"
    return found.group(0)


def test_single_edition_is_said_and_english_history_linked(real_client: FlaskClient) -> None:
    history = _history(real_client.get("/fr/rules/117.3b").get_data(as_text=True))
    assert "la seule édition de ce texte en Français dans le corpus." in history
    assert 'href="#history-en"' in history and 'id="history-en"' in history
    assert "Historique de la règle 117.3b en anglais" in history
    # The reader's language comes first.
    assert history.index('id="history-fr"') < history.index('id="history-en"')


def test_change_labels_are_translated(real_client: FlaskClient) -> None:
    history = _history(real_client.get("/ja/rules/117.3b").get_data(as_text=True))
    assert not re.search(r"<td>first\b", history)
    assert "コーパスでの初出" in history


def test_every_compared_edition_links_its_changes(real_client: FlaskClient) -> None:
    # An excerpt listed between two full editions must not hide the comparison of the two.
    body = real_client.get("/en/editions.json").get_json()
    english = next(g for g in body["languages"] if g["lang"] == "en")["editions"]
    linked = {e["id"]: e["page"]["changes_url"] for e in english}
    for span in body["comparisons"]:
        new = span["span"].split("..")[1]
        assert linked[new] == span["url"], f"{new}: no link to {span['span']}"
    assert all(linked[e["id"]] is None for e in english if e["kind"] != "full")
