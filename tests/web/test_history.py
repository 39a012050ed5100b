"""A rule's history: shown open, one row per change with runs of unchanged editions folded (so
it stays short at a hundred editions); one edition in a language is said, not an empty table."""

from __future__ import annotations

import re
import shutil
import sqlite3
from itertools import pairwise
from pathlib import Path

from flask.testing import FlaskClient

from kb.align.concordance import change_between
from kb.build import load
from kb.cli.text import _folded_history
from kb.history import diffs as kb_history
from kb.knowledge.model import LANGS, Edition, KnowledgeBase, Rule
from kb.web import create_app


def _history(html: str) -> str:
    found = re.search(r'<section class="history".*?</section>', html, re.S)
    assert found, "no history section"
    return found.group(0)


def test_single_edition_is_said_and_english_history_linked(real_client: FlaskClient) -> None:
    history = _history(real_client.get("/fr/rules/117.3b").get_data(as_text=True))
    assert "la seule édition de ce texte en français dans le corpus." in history
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
        # classified as the build does (kb.concordance.change_between)
        change = "first" if not i else "edited" if i in texts else "moved" if i == 50 else "same"
        rule = Rule(
            edition=ed_id, lang="en", number=number, kind="subrule", text=text,
            canonical="117.3", lineage="117.3", change=change,
        )  # fmt: skip
        kb.rules[ed_id] = {number: rule}
        kb.concordance.setdefault("117.3", {})[ed_id] = number
    return kb


def test_a_hundred_editions_fold_into_one_row_per_change(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = create_app({"INSTANCE": tmp_path, "KB": _archive(100), "TESTING": True})
    client = app.test_client()
    page = client.get("/en/rules/117.3.json?history=all").get_json()["page"]
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
    # a phrase replaced reads as one deletion and one insertion, the spaces carried by the words
    assert "<del>Players pass in turn order</del><ins>Each player passes</ins>." in history
    assert len(html) < 30_000


def test_old_numbers_say_which_editions_printed_them(client: FlaskClient) -> None:
    # The 2019-06-14 edition still printed 116.3b: "until June 14" said it had gone by then.
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "116.3b in the edition of June 14, 2019" in html
    fr = client.get("/fr/rules/117.3b").get_data(as_text=True)
    assert "116.3b dans l’édition du 14 juin 2019" in fr


# ---- the history precomputed at build time (kb.history) ----------------------------------------
def _db(instance: Path) -> Path:
    return (instance / "kb.sqlite").resolve()


def test_stored_history_equals_what_the_page_computed(web_instance: Path) -> None:
    """Every lineage's stored entries are the ones computed from the rules' texts."""
    kb = load(web_instance)
    assert kb_history._has_table(kb)
    lineages = list(kb.concordance)
    assert lineages
    with_diffs = 0
    for lineage in lineages:
        stored = kb_history.entries(kb, lineage)
        computed = {
            lang: found for lang in LANGS if (found := kb_history.compute(kb, lineage, lang))
        }
        assert stored == computed, lineage
        with_diffs += any(e[4] for rows in stored.values() for e in rows)
        # The examples' word diff is stored exactly where the lineage calls the rule edited,
        # its text is the one before and its examples are not.
        for found in stored.values():
            for before, entry in pairwise(found):
                old, new = kb.rule(*before[:2]), kb.rule(*entry[:2])
                assert old is not None and new is not None
                examples_only = (
                    entry[2] == "edited" and entry[4] is None and old.examples != new.examples
                )
                assert (entry[6] is not None) == examples_only, (lineage, entry)
            assert found[0][6] is None
    assert with_diffs > 0  # the instance has edits, so the comparison covered word diffs


def test_write_history_refreshes_the_named_lineages_only(
    web_instance: Path, tmp_path: Path
) -> None:
    path = tmp_path / "kb.sqlite"
    shutil.copyfile(_db(web_instance), path)
    with sqlite3.connect(path) as conn:
        before = dict(conn.execute("SELECT lineage || '|' || lang, entries FROM history"))
        conn.execute("UPDATE history SET entries = '[]'")
    some = sorted({key.split("|")[0] for key in before})[:3]
    written = kb_history.write_history(path, some)
    with sqlite3.connect(path) as conn:
        after = dict(conn.execute("SELECT lineage || '|' || lang, entries FROM history"))
    assert written == sum(1 for key in before if key.split("|")[0] in some)
    for key, entries in after.items():
        assert entries == (before[key] if key.split("|")[0] in some else "[]"), key
    assert kb_history.write_history(path) == len(before)
    with sqlite3.connect(path) as conn:
        assert dict(conn.execute("SELECT lineage || '|' || lang, entries FROM history")) == before


def test_pages_without_the_table_show_the_same_history(web_instance: Path, tmp_path: Path) -> None:
    """A database of an older build (no history table) renders the very same pages."""
    copy = tmp_path / "instance"
    shutil.copytree(web_instance, copy, symlinks=True, ignore=shutil.ignore_patterns("cache"))
    with sqlite3.connect(_db(copy)) as conn:
        conn.execute("DROP TABLE history")
    stored = create_app({"INSTANCE": web_instance, "PAGE_CACHE": False}).test_client()
    computed = create_app({"INSTANCE": copy, "PAGE_CACHE": False}).test_client()
    kb = load(web_instance)
    pages = 0
    for lineage in list(kb.concordance)[:: max(1, len(kb.concordance) // 60)]:
        if ":" in lineage:
            continue
        for url in (f"/en/rules/{lineage}", f"/ja/rules/{lineage}.json"):
            a, b = stored.get(url), computed.get(url)
            assert a.status_code == b.status_code, url
            assert a.get_data(as_text=True) == b.get_data(as_text=True), url
            pages += a.status_code == 200
    assert pages > 20


def test_history_lookup_is_one_indexed_query(web_instance: Path) -> None:
    conn = sqlite3.connect(f"file:{_db(web_instance)}?mode=ro", uri=True)
    try:
        plan = " ".join(
            row[-1]
            for row in conn.execute(
                "EXPLAIN QUERY PLAN SELECT lang, entries FROM history WHERE lineage = ?", ("1",)
            )
        )
    finally:
        conn.close()
    assert "USING INDEX history_by_lineage" in plan, plan


def test_write_history_reuses_unchanged_lineages_of_the_previous_build(
    web_instance: Path, tmp_path: Path
) -> None:
    """Entries come from the earlier build where their inputs hash the same, and are computed
    again where a text changed."""
    previous, path = tmp_path / "previous.sqlite", tmp_path / "kb.sqlite"
    shutil.copyfile(_db(web_instance), previous)
    shutil.copyfile(_db(web_instance), path)
    with sqlite3.connect(path) as conn:
        edited, number = conn.execute(
            "SELECT l.lineage, l.number FROM lineage l JOIN history h ON h.lineage = l.lineage "
            "WHERE l.edition = ? AND h.lang = 'en' LIMIT 1",
            (load(web_instance).newest("en").id,),
        ).fetchone()
        conn.execute(
            "UPDATE rules SET text = text || ' (changed)' WHERE edition = ? AND number = ?",
            (load(web_instance).newest("en").id, number),
        )
        conn.execute(  # as the build classifies it
            "UPDATE lineage SET change = 'edited' WHERE edition = ? AND number = ?",
            (load(web_instance).newest("en").id, number),
        )
    with sqlite3.connect(previous) as conn:  # marks: what is copied shows as "[]"
        conn.execute("UPDATE history SET entries = '[]'")
    kb_history.write_history(path, previous=previous)
    with sqlite3.connect(path) as conn:
        rows = dict(conn.execute("SELECT lineage || '|' || lang, entries FROM history"))
    assert rows[f"{edited}|en"] != "[]" and "(changed)" in rows[f"{edited}|en"]
    assert sum(entries == "[]" for entries in rows.values()) == len(rows) - 1


def test_write_history_replaces_a_table_of_the_older_format(
    web_instance: Path, tmp_path: Path
) -> None:
    """A database copied from a build whose history table had no digest column (an incremental
    build patches a copy) gets the whole table rewritten, even when lineages are named."""
    path = tmp_path / "kb.sqlite"
    shutil.copyfile(_db(web_instance), path)
    with sqlite3.connect(path) as conn:
        expected = dict(conn.execute("SELECT lineage || '|' || lang, entries FROM history"))
        conn.execute("DROP TABLE history")
        conn.execute("CREATE TABLE history (lineage TEXT, lang TEXT, entries TEXT)")
        conn.execute("INSERT INTO history VALUES ('x', 'en', '[]')")
    assert kb_history.write_history(path, ["1"]) == len(expected)
    with sqlite3.connect(path) as conn:
        got = dict(conn.execute("SELECT lineage || '|' || lang, entries FROM history"))
    assert got == expected


# ---- one classification of a change: the lineage's (kb rule, concordance) ----------------------
def _lineage(
    texts: dict[int, str],
    editions: int,
    last: int | None = None,
    examples: dict[int, list[str]] | None = None,
) -> KnowledgeBase:
    """Rule 101.1 in ``editions`` English editions, its text ``texts[i]`` from edition ``i`` on,
    its examples ``examples[i]`` from edition ``i`` on, printed up to edition ``last`` (then
    deleted); each change classified by the build's own
    :func:`kb.align.concordance.change_between`."""
    kb = KnowledgeBase(content_hash=f"lineage-{editions}-{last}")
    ids = [f"en-{2010 + i // 6}-{1 + i % 6 * 2:02d}-01" for i in range(editions)]
    lineage = "101.1" if last is None else f"{ids[last]}:101.1"
    prev: Rule | None = None
    for i, ed_id in enumerate(ids):
        kb.editions[ed_id] = Edition(ed_id, "en", ed_id[3:], "full", ed_id, [f"{ed_id}.txt"])
        other = Rule(edition=ed_id, lang="en", number="101.2", kind="subrule", text="Other.")
        kb.rules[ed_id] = {"101.2": other}
        if last is not None and i > last:
            continue
        text = texts.get(i, prev.text if prev else "")
        shown = (examples or {}).get(i, prev.examples if prev else [])
        rule = Rule(
            edition=ed_id, lang="en", number="101.1", kind="subrule", text=text, examples=shown,
            canonical=None if last is not None else "101.1", lineage=lineage,
        )  # fmt: skip
        rule.change = "first" if prev is None else change_between(prev, rule)
        kb.rules[ed_id]["101.1"] = rule
        kb.concordance.setdefault(lineage, {})[ed_id] = "101.1"
        prev = rule
    return kb


def test_a_change_of_typography_is_no_edit_on_the_page_as_for_kb_rule(tmp_path: Path) -> None:
    texts = {
        0: 'A spell "with quotes" that says see rule 116.3.',
        10: "A spell “with quotes” that says see rule 117.3.",  # typography, a reference renumbered
        20: "A spell “with quotes” that says see rule 117.4 and more.",  # an edit
    }
    kb = _lineage(texts, 30)
    assert [kb.rules[ed]["101.1"].change for ed in sorted(kb.editions)][9:12] == ["same"] * 3
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True})
    page = app.test_client().get("/en/rules/101.1.json?history=all").get_json()["page"]
    (english,) = page["history"]
    assert [e["diff"] is not None for e in english["entries"]].count(True) == 1
    rows = english["rows"]
    assert [r["unchanged"] for r in rows] == [19, 9]
    assert rows[1]["entry"]["diff"] == (
        "A spell “with quotes” that says see rule <del>117.3</del><ins>117.4 and more</ins>."
    )
    # kb rule folds the same editions into the same lines
    assert len(_folded_history(kb, kb.history("101.1", "en"))) == len(rows)


def test_stored_history_changes_where_kb_rule_says_so(full_instance: Path) -> None:
    """On the real build: every lineage's history rows (its entries that start a row) are the
    lines of ``kb rule``'s history, and no entry the lineage calls unchanged has a word diff."""
    kb = load(full_instance)
    compared = 0
    for lineage in kb.concordance:
        for lang, stored in kb_history.entries(kb, lineage).items():
            lines = _folded_history(kb, kb.history(lineage, lang))
            assert sum(1 for e in stored if e[5]) == len(lines), (lineage, lang)
            assert not [e for e in stored if e[2] in ("same", "moved") and e[4]], lineage
            compared += 1
    assert compared > 100


def test_a_deleted_rule_shows_its_history_and_what_became_of_it(tmp_path: Path) -> None:
    kb = _lineage({0: "Mana burn.", 3: "Mana burn, edited."}, 10, last=6)
    gone, deleted_in = sorted(kb.editions)[6:8]
    client = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True}).test_client()
    html = client.get(f"/en/{gone}/rules/101.1").get_data(as_text=True)
    history = _history(html)
    assert "This rule no longer exists." in html
    assert "<del>Mana burn.</del><ins>Mana burn, edited.</ins>" in history or (
        "Mana burn<ins>, edited</ins>." in history
    )
    assert '<tr class="deleted">' in history and "101.1 → —" in history
    assert f"/en/editions/{gone}..{deleted_in}" in history
    assert "2 changes" in history  # the edit, and the deletion
    assert "Earlier numbers" not in history  # it had one number, its last
    page = client.get(f"/en/{gone}/rules/101.1.json?history=all").get_json()["page"]
    (english,) = page["history"]
    assert len(english["entries"]) == 7
    assert english["deleted"]["edition"] == deleted_in and english["deleted"]["number"] == "101.1"


def test_an_edit_of_the_examples_only_is_a_row_with_their_diff(tmp_path: Path) -> None:
    kb = _lineage(
        {0: "Text."}, 6, examples={0: ["You can’t play land cards."], 3: ["You can’t play lands."]}
    )
    assert kb.rules[sorted(kb.editions)[3]]["101.1"].change == "edited"
    client = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True}).test_client()
    (english,) = client.get("/en/rules/101.1.json?history=all").get_json()["page"]["history"]
    assert [r["unchanged"] for r in english["rows"]] == [2, 2]
    assert english["rows"][1]["entry"]["diff"] == (
        '<span lang="en">Examples</span> — You can’t play <del>land cards</del><ins>lands</ins>.'
    )
    history = _history(client.get("/fr/rules/101.1").get_data(as_text=True))
    assert '<td>modifiée<div class="diff" lang="en"><span lang="fr">Exemples</span> — ' in history
