"""A rule's history: shown open, one row per change with runs of unchanged editions folded (so
it stays short at a hundred editions); one edition in a language is said, not an empty table."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from kb.model import Edition, KnowledgeBase, Rule
from kb.web import create_app


def _history(html: str) -> str:
    found = re.search(r'<section class="history".*?</section>', html, re.S)
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


def test_history_is_open_not_a_collapsed_details(client: FlaskClient) -> None:
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    history = _history(html)
    assert '<h2 id="h-history">History</h2>' in history
    assert "<details" not in history and "116.3b → 117.3b" in history


def _archive(editions: int) -> KnowledgeBase:
    """A rule printed in ``editions`` English editions: edited twice, renumbered once."""
    kb = KnowledgeBase(content_hash=f"archive-{editions}")
    texts = {
        0: "Players pass in turn.",
        40: "Players pass in turn order.",
        70: "Each player passes.",
    }
    text = texts[0]
    for i in range(editions):
        day = f"{2003 + i // 6}-{1 + i % 6 * 2:02d}-01"
        ed_id = f"en-{day}"
        kb.editions[ed_id] = Edition(ed_id, "en", day, "full", ed_id, [f"cr-{day}.txt"])
        number = "116.3" if i < 50 else "117.3"
        text = texts.get(i, text)
        rule = Rule(
            edition=ed_id, lang="en", number=number, kind="subrule", text=text,
            canonical="117.3", lineage="117.3", change="same",
        )  # fmt: skip
        kb.rules[ed_id] = {number: rule}
        kb.concordance.setdefault("117.3", {})[ed_id] = number
    return kb


def test_a_hundred_editions_fold_into_one_row_per_change(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = create_app({"INSTANCE": tmp_path, "KB": _archive(100), "TESTING": True})
    client = app.test_client()
    page = client.get("/en/rules/117.3.json").get_json()["page"]
    english = next(h for h in page["history"] if h["lang"] == "en")
    assert len(english["entries"]) == 100
    # first print, edit at 40, renumbering at 50, edit at 70: four rows, not a hundred
    rows = english["rows"]
    assert [r["unchanged"] for r in rows] == [39, 9, 19, 29]
    assert [r["entry"]["number"] for r in rows] == ["116.3", "116.3", "117.3", "117.3"]
    assert rows[2]["entry"]["renumbered_from"] == "116.3"
    assert rows[1]["entry"]["diff"] == "Players pass in turn<ins> order</ins>."
    html = client.get("/en/rules/117.3").get_data(as_text=True)
    history = _history(html)
    assert history.count("<tr>") == 1 + 4  # the header row and the four changes
    assert "then unchanged in 39 more editions" in history
    assert "<del>Players</del><ins>Each</ins> <del>pass</del><ins>player</ins>" in history
    assert len(html) < 30_000


def test_old_numbers_say_which_editions_printed_them(client: FlaskClient) -> None:
    # The 2019-06-14 edition still printed 116.3b: "until June 14" said it had gone by then.
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "116.3b in the edition of June 14, 2019" in html
    fr = client.get("/fr/rules/117.3b").get_data(as_text=True)
    assert "116.3b dans l’édition du 14 juin 2019" in fr
