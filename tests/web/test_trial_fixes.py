"""Defects found by a new user's trial of the site and API (each test failed before its fix)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.knowledge.model import KnowledgeBase
from kb.web import create_app


# ---- 1. a damaged search index: the error envelope, and no traceback --------------------------
@pytest.fixture
def damaged_app(tmp_path: Path, kb: KnowledgeBase) -> Iterator[Flask]:
    """The app over the hand-made base, with an index folder whose postings file is empty."""
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "postings.sqlite").write_bytes(b"")
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True})
    yield app
    app.extensions["kb_search"].close()


def test_a_damaged_index_answers_the_error_envelope(
    damaged_app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    client = damaged_app.test_client()
    with caplog.at_level(logging.ERROR):
        response = client.get("/en/search.json?q=priority")
    assert response.status_code == 503
    body = response.get_json()
    assert body["ok"] is False and body["status"] == 503
    assert body["error"].startswith("Search is unavailable: cannot open the search index")
    assert "kb build" in body["error"]
    # The log says what is wrong in one line, without a traceback.
    records = [r for r in caplog.records if "search index" in r.getMessage()]
    assert records and all(r.exc_info is None for r in records)
    # The page keeps its form and message; the empty form is still a 200.
    page = client.get("/en/search?q=priority")
    assert page.status_code == 503 and "<form" in page.get_data(as_text=True)
    assert client.get("/en/search.json").get_json()["ok"] is True


def test_no_index_at_all_is_the_error_envelope_too(client: FlaskClient) -> None:
    body = client.get("/fr/search.json?q=priorit%C3%A9").get_json()
    assert body["ok"] is False and body["status"] == 503
    assert body["error"].startswith("Search is unavailable")


# ---- 2. glossary lookup: one lookup for CLI and web, the asked language first ------------------
def _with_terms(kb: KnowledgeBase) -> KnowledgeBase:
    """The hand-made base plus the entries and terms the trial looked up."""
    from kb.knowledge.model import GlossaryEntry, Term

    table = kb.glossary["en-2019-07-12"]
    for key, term, text in (
        ("stack", "Stack", "A zone."),
        ("pile", "Pile", "A temporary grouping of cards."),
        ("activate", "Activate", "To put an activated ability onto the stack."),
        ("state-based actions", "State-Based Actions", "Game actions that happen."),
    ):
        table[key] = GlossaryEntry("en-2019-07-12", "en", key, term, text)
    kb.terms += [
        Term("stack", ["stack"], ["pile"], ["スタック"], ["405"]),
        Term("activate", ["activate"], ["activer"], ["起動する"], ["602"]),
        Term(
            "active-player",
            ["active player", "active players"],
            ["joueur actif", "joueurs actifs"],
            ["アクティブ・プレイヤー"],
            ["102.1"],
        ),
    ]
    return kb


@pytest.mark.parametrize(
    ("words", "lang", "key", "via"),
    [
        ("active player", "fr", "active player", None),  # not “activate”
        ("joueur actif", "fr", "active player", "active player"),
        ("優先権", "ja", "priority", "priority"),
        ("pile", "fr", "stack", "stack"),  # the French word, not the English "Pile"
        ("pile", "en", "pile", None),
        ("state-based action", "en", "state-based actions", None),
        ("state-based action", "fr", "state-based actions", None),
        ("Triggered Abilities", "en", "triggered ability", None),
    ],
)
def test_glossary_match(
    kb: KnowledgeBase, words: str, lang: str, key: str, via: str | None
) -> None:
    from kb.knowledge.lookup import glossary_match

    found = glossary_match(_with_terms(kb), words, lang)
    assert found is not None and found.entry.key == key
    assert found.via == via and not found.guessed


@pytest.fixture
def terms_client(tmp_path: Path, kb: KnowledgeBase) -> Iterator[FlaskClient]:
    app = create_app({"INSTANCE": tmp_path, "KB": _with_terms(kb), "TESTING": True})
    yield app.test_client()
    app.extensions["kb_search"].close()


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("/fr/glossary/joueur%20actif", "/fr/glossary/active%20player"),
        ("/ja/glossary/%E5%84%AA%E5%85%88%E6%A8%A9", "/ja/glossary/priority"),
        ("/fr/glossary/pile", "/fr/glossary/stack"),
        ("/en/glossary/state-based%20action", "/en/glossary/state-based%20actions"),
        ("/fr/glossary/Pile.json?lang=en", "/fr/glossary/pile.json?lang=en"),
    ],
)
def test_glossary_pages_find_what_the_cli_finds(
    terms_client: FlaskClient, url: str, target: str
) -> None:
    response = terms_client.get(url)
    assert response.status_code == 301
    assert response.headers["Location"].endswith(target)


def test_the_english_pile_keeps_a_french_address(terms_client: FlaskClient) -> None:
    page = terms_client.get("/fr/glossary/pile?lang=en").get_data(as_text=True)
    assert "A temporary grouping of cards." in page
    index = terms_client.get("/fr/glossary/").get_data(as_text=True)
    assert 'href="/fr/glossary/pile?lang=en"' in index
    assert 'href="/fr/glossary/stack"' in index
    assert 'href="/en/glossary/pile"' in terms_client.get("/en/glossary/").get_data(as_text=True)
    assert terms_client.get("/fr/glossary/pile?lang=de").status_code == 400


def _cli(monkeypatch: pytest.MonkeyPatch, base: KnowledgeBase, *argv: str) -> tuple[int, str]:
    """Run ``kb ARGV`` on a knowledge base in memory; the status and stdout (or the error)."""
    import io

    from kb.cli import main as cli

    monkeypatch.setattr(cli, "_kb", lambda args: base)
    out = io.StringIO()
    try:
        code = cli.main(list(argv), out=out)
    except SystemExit as exc:  # pragma: no cover - main reports errors itself
        code = int(exc.code or 0)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("words", "lang", "term"),
    [
        ("active player", "fr", "Active Player"),
        ("pile", "fr", "Stack"),
        ("state-based action", "en", "State-Based Actions"),
        ("joueur actif", "fr", "Active Player"),
    ],
)
def test_cli_glossary_is_the_web_lookup(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kb: KnowledgeBase,
    words: str,
    lang: str,
    term: str,
) -> None:
    code, out = _cli(monkeypatch, _with_terms(kb), "glossary", words, "--lang", lang)
    assert code == 0, capsys.readouterr().err
    assert out.splitlines()[-2].startswith(term + "  [")


# ---- 3. a current number in an old edition: that edition's number first ------------------------
def test_old_edition_suggests_the_rules_number_there(client: FlaskClient) -> None:
    body = client.get("/en/rules/117.3b.json?edition=2019-06-14").get_json()
    assert body["status"] == 404
    assert body["suggestions"][0]["number"] == "116.3b"


def test_cli_old_edition_names_the_rules_number_there(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    code, _ = _cli(monkeypatch, kb, "rule", "117.5", "--edition", "2019-06-14")
    assert code != 0
    err = capsys.readouterr().err
    assert "is 116" not in err  # 117.5 is new in 2019-07-12: no lineage to offer
    code, _ = _cli(monkeypatch, kb, "rule", "117.3b", "--edition", "2019-06-14")
    err = capsys.readouterr().err
    assert code != 0 and "(the current 117.3b is 116.3b there); nearest: 116.3b" in err


def test_cli_rule_missing_in_a_language_shows_english_like_the_web(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    code, out = _cli(monkeypatch, kb, "rule", "117.5", "--lang", "ja")
    assert code == 0, capsys.readouterr().err
    assert out.startswith("(rule 117.5 is not available in ja; the English text follows)\n")
    assert "state-based actions" in out
    assert "117.5" in _cli(monkeypatch, kb, "rule", "117.5", "--lang", "ja", "--json")[1]


# ---- 4. comparing an excerpt with a full edition ---------------------------------------------
def _with_excerpt(kb: KnowledgeBase) -> KnowledgeBase:
    """The hand-made base plus an English excerpt that quotes one rule of 2019-07-12."""
    from kb.knowledge.model import Edition, Rule

    ex = "en-2019-08-01"
    kb.editions[ex] = Edition(ex, "en", "2019-08-01", "partial", "en-2019-07-12", ["wiki.txt"])
    quoted = kb.rules["en-2019-07-12"]["117.3b"]
    kb.rules[ex] = {
        "117.3b": Rule(
            edition=ex,
            lang="en",
            number="117.3b",
            kind="subrule",
            text=quoted.text + " Now.",
            canonical="117.3b",
        )
    }
    kb.concordance["117.3b"][ex] = "117.3b"
    return kb


@pytest.fixture
def excerpt_client(tmp_path: Path, kb: KnowledgeBase) -> Iterator[FlaskClient]:
    app = create_app({"INSTANCE": tmp_path, "KB": _with_excerpt(kb), "TESTING": True})
    yield app.test_client()
    app.extensions["kb_search"].close()


def test_an_excerpt_is_not_compared_on_rules_it_does_not_quote(
    excerpt_client: FlaskClient,
) -> None:
    body = excerpt_client.get("/en/editions/en-2019-08-01..en-2019-07-12.json").get_json()
    assert body["excerpt"] == ["from"] and body["counts"]["created"] == 0
    apart = body["not_compared"]
    assert len(apart) >= 9 and {c["change"] for c in apart} == {"created"}  # 9 rules unquoted
    back = excerpt_client.get("/en/editions/en-2019-07-12..en-2019-08-01.json").get_json()
    assert back["excerpt"] == ["to"] and back["counts"]["deleted"] == 0
    assert len(back["not_compared"]) == len(apart)
    page = excerpt_client.get("/fr/editions/en-2019-08-01..en-2019-07-12").get_data(as_text=True)
    assert "ne contient que des extraits" in page and f"les {len(apart)} règles" in page
    # Two full editions: nothing set apart, no note.
    both = excerpt_client.get("/en/editions/en-2019-06-14..en-2019-07-12.json").get_json()
    assert both["excerpt"] == [] and both["not_compared"] == []


def test_cli_concordance_sets_the_excerpt_apart(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    import json

    base = _with_excerpt(kb)
    code, out = _cli(monkeypatch, base, "concordance", "en-2019-08-01", "en-2019-07-12")
    assert code == 0, capsys.readouterr().err
    assert "(en-2019-08-01 holds excerpts only" in out and "0 created" in out
    code, out = _cli(monkeypatch, base, "concordance", "en-2019-07-12", "en-2019-08-01", "--json")
    data = json.loads(out)
    assert data["deleted"] == [] and data["excerpt"] == ["to"] and len(data["not_compared"]) >= 9


# ---- 6. the API documents the kinds the search accepts ------------------------------------------
def test_openapi_kind_is_the_list_the_server_accepts(client: FlaskClient) -> None:
    doc = client.get("/api/openapi.json").get_json()
    params = doc["paths"]["/{locale}/search.json"]["get"]["parameters"]
    kind = next(p for p in params if p["name"] == "kind")
    kinds = [k for k in kind["schema"]["enum"] if k]
    assert kinds and "rule" not in kinds
    for value in kinds:
        assert client.get(f"/en/search.json?q=priority&kind={value}").status_code != 400, value
        assert value in kind["description"]
    assert client.get("/en/search.json?q=priority&kind=rule").status_code == 400


# ---- 7. suggestions as written, once ----------------------------------------------------------
def test_suggestions_get_their_accents_back_and_come_once(kb: KnowledgeBase) -> None:
    from kb.web.pages.search import _as_written

    found = ["priorite", "recoit", "Legend", "legend", "Legend Rule", "legends", "joueur"]
    assert _as_written(kb, found, "fr") == [
        "priorité",
        "reçoit",
        "Legend",
        "Legend Rule",
        "legends",
        "joueur",
    ]
    # Japanese keeps what the index gave (folding would strip the kana's voicing marks).
    assert _as_written(kb, ["が", "か"], "ja") == ["が", "か"]


def test_suggest_endpoint_answers_written_forms(full_client: FlaskClient) -> None:
    _, french = full_client.get("/fr/suggest?q=r%C3%A9so").get_json()
    assert french and all(not w.startswith("reso") for w in french)
    assert "résolution" in french or "résoudre" in french
    _, english = full_client.get("/en/suggest?q=legend").get_json()
    assert len({w.casefold() for w in english}) == len(english)


# ---- 8. minor: example suggestions, error titles, a page past the end --------------------------
def test_a_mistyped_example_suggests_the_similar_one(kb: KnowledgeBase) -> None:
    from kb.knowledge.model import ExampleInfo
    from kb.web.pages.examples import similar_examples

    kb.examples = [
        ExampleInfo(f"10{i}-unrelated-{i}", "x", "x.md", [], "", True) for i in range(12)
    ] + [ExampleInfo("117-3a-active-player-first", "y", "y.md", [], "", True)]
    assert [e.id for e in similar_examples(kb, "117-3a-active")] == ["117-3a-active-player-first"]
    assert len(similar_examples(kb, "zzzz")) == 10  # nothing near: the first ones


@pytest.mark.parametrize(
    ("locale", "title"),
    [
        ("en", "Method not allowed"),
        ("fr", "Méthode non autorisée"),
        ("ja", "許可されていないメソッド"),
    ],
)
def test_error_pages_are_titled_by_their_status(
    client: FlaskClient, locale: str, title: str
) -> None:
    page = client.post(f"/{locale}/rules/117.3a").get_data(as_text=True)
    assert f"<h1>{title} " in page and "Bad request" not in page
    assert "<h1>Bad request " in client.get("/en/search?q=x&page=0").get_data(as_text=True)


def test_a_page_past_the_end_says_so(full_client: FlaskClient) -> None:
    first = full_client.get("/en/search.json?q=priority").get_json()
    pages = first["pages"]
    assert 1 < pages < 500
    body = full_client.get("/en/search.json?q=priority&page=500").get_json()
    assert body["past_end"] is True and body["next_page"] is None
    assert body["last_page"]["page"] == pages and body["prev_page"]["page"] == pages
    html = full_client.get("/en/search?q=priority&page=500").get_data(as_text=True)
    assert f"the results end at page {pages}" in html
    assert full_client.get("/en/search.json?q=priority&page=2").get_json()["past_end"] is False


def test_did_you_mean_is_written_with_its_accents(full_client: FlaskClient) -> None:
    body = full_client.get("/fr/search.json?q=priorte&lang=fr").get_json()
    assert body["suggestion"]["query"] == "priorité"
    assert "q=priorit%C3%A9" in body["suggestion"]["url"]
