"""The playground: the page in three languages, POST /api/run, permalinks, "Try it" links, and
the limits (CPU time, the gate's 429, a worker that cannot start, the wall clock)."""

from __future__ import annotations

import base64
import contextlib
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.knowledge.model import KnowledgeBase
from kb.web import create_app
from kb.web.pages.play import MAX_CODE, decode, encode

BOLT = """players: Alice, Bob
Alice has: hand [Lightning Bolt]; battlefield [Mountain]
Alice taps Mountain for {R}
Alice casts Lightning Bolt targeting Bob
Alice passes
Bob passes
? life Bob: 17"""
#: A scenario that runs for far more than 200 ms of CPU (hundreds of turns, big libraries).
HEAVY = "players: Alice, Bob\nAlice has: library 1000\nBob has: library 1000\n" + (
    "advance to Bob upkeep\nadvance to Alice upkeep\n" * 400
)


@contextlib.contextmanager
def _app(tmp_path: Path, kb: KnowledgeBase, **config: object) -> Iterator[Flask]:
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True, **config})
    yield app
    if "kb.play" in app.extensions:
        app.extensions["kb.play"].close()
    app.extensions["kb_search"].close()


@pytest.fixture
def play_client(tmp_path: Path, kb: KnowledgeBase) -> Iterator[FlaskClient]:
    with _app(tmp_path, kb) as app:
        yield app.test_client()


@pytest.mark.parametrize(
    ("locale", "title", "run"),
    [
        ("en", "Playground", "Run"),
        ("fr", "Bac à sable", "Exécuter"),
        ("ja", "プレイグラウンド", "実行"),
    ],
)
def test_the_page_in_three_languages(
    client: FlaskClient, locale: str, title: str, run: str
) -> None:
    response = client.get(f"/{locale}/play")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f"<h1>{title}</h1>" in html and f">{run}</button>" in html
    assert "players: Alice, Bob" in html  # the sample to start from, not run
    assert 'id="play-result"' in html and "play-trace" not in html
    assert f'href="/{locale}/play"' in html  # the site's navigation names it
    assert "/static/play.js" in html


def test_api_run_answers_the_trace_with_rule_links(play_client: FlaskClient) -> None:
    response = play_client.post("/api/run", json={"scenario": BOLT, "locale": "fr"})
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] and body["outcome"] == "done" and body["passed"] and not body["problems"]
    assert body["message_local"] == "Le scénario s’est exécuté et chaque attente est satisfaite."
    linked = [r for e in body["events"] for r in e["rules"]]
    assert {"number": "117.3a", "url": "/fr/rules/117.3a"} in linked
    assert any("Lightning Bolt" in e["text"] for e in body["events"])
    assert 0 <= body["cpu_ms"] <= body["cpu_limit_ms"] == 200
    assert response.headers["Cache-Control"] == "no-cache"
    # the permalink opens the page with the scenario and its trace, rendered by the server
    page = play_client.get(body["permalink"])
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Alice casts Lightning Bolt targeting Bob" in html
    assert 'class="ref" href="/fr/rules/117.3a"' in html and "play-trace" in html


def test_problems_name_their_lines(play_client: FlaskClient) -> None:
    body = play_client.post("/api/run", json={"scenario": BOLT + "\n? life Bob: 3"}).get_json()
    assert not body["passed"] and body["started"]
    assert [p["line"] for p in body["problems"]] == [8]
    assert "2 problem" not in body["message"] and "1 problem" in body["message"]
    body = play_client.post("/api/run", data={"scenario": "players: Alice\n"}).get_json()
    assert body["problems"][0]["line"] == 1 and not body["started"]


def test_the_form_runs_without_the_script(play_client: FlaskClient) -> None:
    response = play_client.post("/ja/play", data={"scenario": BOLT})
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "シナリオは実行され" in html
    assert "play-trace" in html and "/ja/play?s=" in html
    assert play_client.post("/ja/play", data={}).status_code == 400


def test_permalinks_round_trip_and_damaged_ones_are_400(client: FlaskClient) -> None:
    text = "players: Alice, Bob\n# é ü 日本語 {R}\nAlice passes"
    code = encode(text)
    assert code is not None and decode(code) == text
    assert encode("".join(chr(0x3000 + i * 7 % 5000) for i in range(4000))) is None  # too long
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    huge = base64.urlsafe_b64encode(bomb.compress(b"a" * 1_000_000) + bomb.flush()).decode()
    assert len(huge) <= MAX_CODE
    for bad in ("@@@", "AAAA", huge.rstrip("="), "A" * (MAX_CODE + 1), code[:-3]):
        response = client.get(f"/en/play.json?s={bad}")
        assert response.status_code in (400, 414), bad
        assert response.get_json()["ok"] is False
    response = client.get("/fr/play?s=@@@")
    assert response.status_code == 400 and "abîmé" in response.get_data(as_text=True)
    assert client.get("/en/play?s=x&example=y").status_code == 400


def test_bad_bodies_are_400_or_413_in_the_envelope(client: FlaskClient) -> None:
    cases = [
        ({"json": {}}, 400),
        ({"json": {"scenario": 3}}, 400),
        ({"json": {"scenario": "x", "locale": "de"}}, 400),
        ({"json": ["scenario"]}, 400),
        ({"data": b"{", "content_type": "application/json"}, 400),
        ({"data": b"[" * 5000, "content_type": "application/json"}, 400),
        ({"json": {"scenario": "a" * 2_000_000}}, 413),
    ]
    for kwargs, status in cases:
        response = client.post("/api/run", **kwargs)
        assert response.status_code == status, kwargs
        body = response.get_json()
        assert body["ok"] is False and body["status"] == status and body["error"]
    assert client.get("/api/run").status_code == 405
    too_long = client.post("/api/run", json={"scenario": "x" * 25_000}).get_json()
    assert too_long["ok"] and "too long" in too_long["problems"][0]["message"]


def test_a_run_is_stopped_after_200_ms_of_cpu(play_client: FlaskClient) -> None:
    body = play_client.post("/api/run", json={"scenario": HEAVY}).get_json()
    assert body["outcome"] == "cpu" and not body["passed"]
    assert 190 <= body["cpu_ms"] < 400
    assert "200 ms" in body["message"]
    # the worker stays usable: the next run answers normally
    assert play_client.post("/api/run", json={"scenario": BOLT}).get_json()["passed"]


def test_the_gate_answers_429_when_full(tmp_path: Path, kb: KnowledgeBase) -> None:
    with _app(tmp_path, kb, PLAY_WORKERS=1, PLAY_QUEUE=0, PLAY_WAIT=0.05) as app:
        client = app.test_client()
        statuses: list[int] = []

        def post() -> None:
            with app.test_client() as mine:
                statuses.append(mine.post("/api/run", json={"scenario": HEAVY}).status_code)

        threads = [threading.Thread(target=post) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert 200 in statuses and 429 in statuses, statuses
        from kb.web.pages.play import pool

        with app.test_request_context():
            gate = pool()
        gate._waiting = gate.size + gate.queue  # as if every place were taken
        try:
            busy = client.post("/api/run", json={"scenario": BOLT})
            page = client.get("/fr/play?s=" + (encode(BOLT) or ""))
        finally:
            gate._waiting = 0
        assert busy.status_code == 429 and busy.headers["Retry-After"] == "1"
        assert busy.get_json()["error"].startswith("The playground is busy")
        # the page keeps the scenario, says why it did not run, and is not cached
        assert page.status_code == 429 and page.headers["Retry-After"] == "1"
        html = page.get_data(as_text=True)
        assert "occupé" in html and "Alice casts Lightning Bolt targeting Bob" in html
        assert page.headers["Cache-Control"] == "no-cache"


def test_a_worker_that_cannot_start_is_503(tmp_path: Path, kb: KnowledgeBase) -> None:
    with _app(tmp_path, kb, PLAY_MEMORY_MB=8) as app:  # too little for an interpreter
        response = app.test_client().post("/api/run", json={"scenario": BOLT})
        assert response.status_code == 503 and "Retry-After" in response.headers
        assert response.get_json()["error"] == "The playground cannot run scenarios right now."


def test_the_wall_clock_kills_a_slow_run(tmp_path: Path, kb: KnowledgeBase) -> None:
    with _app(tmp_path, kb, PLAY_TIMEOUT=0.001) as app:
        client = app.test_client()
        body = client.post("/api/run", json={"scenario": HEAVY}).get_json()
        assert body["outcome"] == "timeout" and "too long" in body["message"]


def test_try_it_opens_the_example_in_the_playground(real_client: FlaskClient) -> None:
    from kb.web.resources import get_kb

    with real_client.application.test_request_context():
        examples = get_kb().examples
    ex = next(e for e in examples if e.markdown.count("```game") >= 2)
    page = real_client.get(f"/en/examples/{ex.id}").get_data(as_text=True)
    assert f'href="/en/play?example={ex.id}"' in page
    response = real_client.get(f"/en/play?example={ex.id}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "play-trace" in html
    assert f"/en/play?example={ex.id}&amp;block=2" in html
    assert real_client.get(f"/en/play?example={ex.id}&block=99").status_code == 404
    assert real_client.get("/en/play?example=no-such-example").status_code == 404
    real_client.application.extensions["kb.play"].close()
