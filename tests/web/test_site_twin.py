"""Issue 28.6: a rule's JSON twin is small. Its history comes folded into runs (``?history=all``:
every entry, the shape of ``kb rule --json``) and the engine's traces are behind each example's
link."""

from __future__ import annotations

from flask.testing import FlaskClient

from kb.web.pages.rule_twin import fold_history


def test_history_rows_fold_into_runs() -> None:
    rows = [
        {"edition": "a", "date": "2010", "number": "116.3b", "change": "first"},
        *(
            {"edition": f"s{i}", "date": f"201{i}", "number": "116.3b", "change": "same"}
            for i in range(5)
        ),
        {"edition": "m", "date": "2019", "number": "117.3b", "change": "moved"},
        {"edition": "n", "date": "2020", "number": "117.3b", "change": "same"},
    ]
    runs = fold_history(rows)
    assert [(r["number"], r["change"], r["unchanged"]) for r in runs] == [
        ("116.3b", "first", 5),
        ("117.3b", "moved", 1),
    ]
    assert runs[0]["until"] == {"edition": "s4", "date": "2014"}


def test_the_rule_twin_is_small_and_links_its_traces(full_client: FlaskClient) -> None:
    response = full_client.get("/en/rules/117.3b.json")
    body = response.get_json()
    assert len(response.get_data()) < 16_000
    assert all("unchanged" in run for run in body["history"])
    assert len(body["history"]) < len(
        full_client.get("/en/rules/117.3b.json?history=all").get_json()["history"]
    )
    for example in [*body["engine_examples"], *body["page"]["examples"]]:
        assert "trace" not in example and "trace_text" not in example
        trace = full_client.get(example["json_url"]).get_json()
        assert trace["ok"] and trace["example"]["trace"]
    assert all("entries" not in h and h["rows"] for h in body["page"]["history"])


def test_history_all_is_the_whole_twin(full_client: FlaskClient) -> None:
    body = full_client.get("/en/rules/117.3b.json?history=all").get_json()
    assert body["engine_examples"] and all("trace" in x for x in body["engine_examples"])
    assert all(h["entries"] for h in body["page"]["history"])
