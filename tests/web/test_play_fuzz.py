"""500 seeded fuzzed requests to the playground (scenarios with every statement and every kind of
bad argument, bodies of every bad shape, damaged permalinks): never a 500, never a traceback,
always the JSON envelope. tests/bench/bench_play_fuzz.py runs 10,000 of them."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.knowledge.model import KnowledgeBase
from kb.web import create_app

from .play_fuzz import body, scenario

COUNT = 500
ALLOWED = {200, 400, 413, 414}


def check(client: FlaskClient, rng: random.Random, outcomes: Counter[str]) -> None:
    """One fuzzed request of three kinds; fails on a 500, a traceback or a bad envelope."""
    kind = rng.random()
    if kind < 0.8:
        data, content_type = body(rng)
        response = client.post("/api/run", data=data, content_type=content_type)
    elif kind < 0.9:
        from kb.web.pages.play import encode

        code = encode(scenario(rng)) or "x"
        if rng.random() < 0.5:  # damaged: cut, a letter changed, a character outside base64url
            i = rng.randrange(len(code))
            code = rng.choice([code[:i], code[:i] + rng.choice("A_-=+/%@") + code[i + 1 :]])
        response = client.get(f"/{rng.choice(['en', 'fr', 'ja'])}/play.json?s={code}")
    else:
        response = client.post("/fr/play", data={"scenario": scenario(rng)})
    text = response.get_data(as_text=True)
    assert response.status_code in ALLOWED, (response.status_code, text[:300])
    assert "Traceback" not in text
    if response.mimetype == "application/json":
        answer = response.get_json()
        assert isinstance(answer, dict) and isinstance(answer.get("ok"), bool)
        assert answer["ok"] == (response.status_code == 200), answer
        outcomes[str((answer.get("result") or answer).get("outcome", response.status_code))] += 1
    else:
        outcomes[f"html {response.status_code}"] += 1


@pytest.fixture
def fuzz_app(tmp_path: Path, kb: KnowledgeBase) -> Iterator[Flask]:
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True})
    yield app
    if "kb.play" in app.extensions:
        app.extensions["kb.play"].close()
    app.extensions["kb_search"].close()


def test_fuzzed_requests_never_break_the_server(fuzz_app: Flask) -> None:
    rng = random.Random(20261207)
    outcomes: Counter[str] = Counter()
    client = fuzz_app.test_client()
    for _ in range(COUNT):
        check(client, rng, outcomes)
    # the fuzz reaches the runs (not only the body checks), and none of them breaks the engine
    assert outcomes["done"] > COUNT // 3, outcomes
    assert outcomes["error"] == 0, outcomes
