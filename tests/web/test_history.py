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
