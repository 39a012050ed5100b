"""One query length limit (:data:`kb.search.query.MAX_QUERY`) for the CLI and the web: a longer
query is cut to it and searched, with a note saying so, in both."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

import kb.build as kb_build
from kb.cli.search import run_search_command
from kb.knowledge.model import KnowledgeBase
from kb.search import build_index
from kb.search import query as qp
from kb.web.app import create_app

LONG = "priority " + "x" * (qp.MAX_QUERY + 100)


@pytest.fixture(scope="module")
def client(
    kb: KnowledgeBase, index_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    app = create_app(
        {
            "INSTANCE": tmp_path_factory.mktemp("web"),
            "KB": kb,
            "INDEX_DIR": index_dir,
            "TESTING": True,
            "PAGE_CACHE": False,
        }
    )
    yield app.test_client()
    app.extensions["kb_search"].close()


def test_the_web_cuts_a_long_query_with_a_note(client: FlaskClient) -> None:
    response = client.get(f"/en/search.json?q={LONG}")
    assert response.status_code == 200
    body = response.get_json()
    assert {"code": "query_cut", "params": {"limit": qp.MAX_QUERY}} in [
        {k: n[k] for k in ("code", "params")} for n in body["notes"]
    ]
    assert body["total"] > 0, "what fits in the limit is searched"


def test_the_web_page_says_the_query_was_cut(client: FlaskClient) -> None:
    response = client.get(f"/en/search?q={LONG}")
    assert response.status_code == 200
    assert f"cut to its first {qp.MAX_QUERY} characters" in response.get_data(as_text=True)


def test_a_query_at_the_limit_is_not_cut(client: FlaskClient) -> None:
    body = client.get("/en/search.json?q=" + "priority " + "y" * (qp.MAX_QUERY - 9)).get_json()
    assert "query_cut" not in [n["code"] for n in body["notes"]]


def test_the_cli_and_the_web_say_the_same(
    client: FlaskClient, kb: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_index(kb, tmp_path / "index")
    monkeypatch.setattr(kb_build, "load", lambda instance: kb)
    out = io.StringIO()
    assert run_search_command(tmp_path, LONG, None, None, None, 10, True, out) == 0
    cli = json.loads(out.getvalue())
    web = client.get(f"/en/search.json?q={LONG}").get_json()
    assert cli["message"] == web["message"]
    assert web["message"].startswith(f"the query was cut to its first {qp.MAX_QUERY} characters")
    assert cli["total"] == web["total"]


def test_nothing_past_the_cut_is_searched(searcher) -> None:
    # A word past the limit, alone, finds rules; after the cut it must add nothing.
    filler = "x" * qp.MAX_QUERY
    cut = searcher.search(f"{filler} priority")
    assert any(n.code == "query_cut" for n in cut.notes)
    assert cut.total == searcher.search(filler).total
