"""/api/openapi.json: valid OpenAPI, generated from kb.web.URLS, covering every JSON route, and the
real responses of the app match the schemas it states."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from kb.web import URLS
from kb.web.openapi import Endpoint, json_paths

#: One URL of each documented path, on the hand-made knowledge base of conftest.py.
SAMPLES = {
    "/{locale}/index.json": "/fr/index.json",
    "/{locale}/rules.json": "/ja/rules.json",
    "/{locale}/rules/{number}.json": "/en/rules/117.3a.json",
    "/{locale}/{edition}/rules/{number}.json": "/fr/en-2019-06-14/rules/116.3b.json",
    "/{locale}/search.json": "/en/search.json?q=priority",
    "/{locale}/suggest": "/en/suggest?q=pri",
    "/{locale}/glossary.json": "/en/glossary.json",
    "/{locale}/glossary/{key}.json": "/fr/glossary/priority.json",
    "/{locale}/editions.json": "/en/editions.json",
    "/{locale}/editions/{span}.json": "/en/editions/en-2019-06-14..en-2019-07-12.json",
    "/{locale}/examples.json": "/en/examples.json",
    "/{locale}/examples/{example_id}.json": "/ja/examples/shock-response.json",
    "/r/{number}.json": "/r/117.3b.json?lang=fr",
    "/api/linkify": "/api/linkify",
    "/api/run": "/api/run",
    "/{locale}/play.json": "/fr/play.json?s=K8hJrEwtKrZScMzJTE7VUXDKT-ICMxUKEouLU4u57BUKijLzizJLKq1AkgA",
    "/api/oembed": "/api/oembed?url=http://localhost/fr/rules/117.3b",
    "/api/openapi.json": "/api/openapi.json",
}
ERRORS = [
    ("get", "/en/rules/999.9.json", 404),
    ("get", "/en/rules/banana.json", 404),
    ("get", "/en/glossary/nothing-like-it.json", 404),
    ("get", "/en/editions/a..b.json", 404),
    ("get", "/en/examples/none.json", 404),
    ("get", "/en/rules/117.json?edition=1999-01-01", 400),
    ("get", "/api/oembed", 400),
    ("get", "/api/oembed?url=/en/rules/999", 404),
    ("get", "/api/oembed?url=/en/rules/117&format=xml", 501),
    ("post", "/api/linkify", 400),
    ("get", "/api/linkify", 405),
    ("post", "/api/run", 400),
    ("get", "/api/run", 405),
    ("get", "/en/play.json?s=@", 400),
]


@pytest.fixture
def doc(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    return response.get_json()


def test_the_document_is_valid_openapi(doc: dict[str, Any]) -> None:
    validate(doc)  # raises on any error
    assert doc["openapi"].startswith("3.")
    assert doc["servers"] == [{"url": "http://localhost"}]  # paths start with "/"


def test_it_is_generated_from_the_url_table(doc: dict[str, Any]) -> None:
    rows = json_paths(URLS)
    assert set(doc["paths"]) == set(rows)
    for path, row in rows.items():
        (op,) = doc["paths"][path].values()
        # The README's text of the row is the operation's description.
        assert op["description"] == str(row)
        assert f"| `{next(u for u, r in URLS.items() if r is row)}` | {row} |" in _readme()


def _readme() -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _flask_to_openapi(rule: str) -> str:
    return re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule)


def test_every_json_route_is_described(app: Flask, doc: dict[str, Any]) -> None:
    """Each route that answers JSON (twins, suggest, the API) is a path of the document, and the
    document has no path the app does not serve."""
    served = set()
    for rule in app.url_map.iter_rules():
        json_route = (
            rule.endpoint.endswith("_json")
            or (rule.rule.startswith("/api/") and rule.rule != "/api/")
            or rule.endpoint == "links.suggest"
        )
        if json_route:
            served.add(_flask_to_openapi(rule.rule))
    served.add("/r/{number}.json")  # the permalink takes ".json" on its number
    assert served == set(doc["paths"])
    adapter = app.url_map.bind("localhost")
    for path, sample in SAMPLES.items():
        assert path in doc["paths"]
        post = "linkify" in path or path == "/api/run"
        adapter.match(sample.split("?")[0], method="POST" if post else "GET")


def _validator(doc: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**schema, "components": doc["components"]})


def _check(doc: dict[str, Any], path: str, method: str, status: int, body: object) -> None:
    responses = doc["paths"][path][method]["responses"]
    response = responses[str(status)]
    if "$ref" in response:
        response = doc["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    schema = response["content"]["application/json"]["schema"]
    errors = sorted(_validator(doc, schema).iter_errors(body), key=str)
    assert not errors, f"{method.upper()} {path} {status}: {errors[0].message} at {errors[0].path}"


def test_real_responses_match_their_schemas(client: FlaskClient, doc: dict[str, Any]) -> None:
    for path, url in SAMPLES.items():
        if path == "/api/linkify":
            response = client.post(url, json={"text": "rules 117.3a–b and 999.9z", "lang": "en"})
            method = "post"
        elif path == "/api/run":
            scenario = "players: Alice, Bob\nAlice passes\n? priority: Bob\n? life Bob: 3"
            response = client.post(url, json={"scenario": scenario, "locale": "ja"})
            assert response.get_json()["problems"], "the schema is checked with problems too"
            method = "post"
        else:
            response = client.get(url, follow_redirects=True)
            method = "get"
        assert str(response.status_code) in doc["paths"][path][method]["responses"], url
        _check(doc, path, method, response.status_code, response.get_json())


@pytest.mark.parametrize(("method", "url", "status"), ERRORS)
def test_errors_are_the_documented_envelope(
    client: FlaskClient, doc: dict[str, Any], method: str, url: str, status: int
) -> None:
    response = client.open(url, method=method.upper())
    assert response.status_code == status
    path = next(p for p, s in SAMPLES.items() if _same_route(p, url))
    # A wrong method is answered by the envelope too (the path documents only its own method).
    operations = doc["paths"][path]
    assert str(status) in operations.get(method, {}).get("responses", {}) or (
        status == 405 and method not in operations
    )
    body = response.get_json()
    errors = list(_validator(doc, {"$ref": "#/components/schemas/Error"}).iter_errors(body))
    assert not errors, errors


def _same_route(path: str, url: str) -> bool:
    pattern = re.sub(r"\\{[a-z_]+\\}", "[^/]+", re.escape(path))
    return re.fullmatch(pattern, url.split("?")[0]) is not None


def test_search_notes_are_documented(real_client: FlaskClient, doc: dict[str, Any]) -> None:
    """A search that says something (here an unbalanced quote) matches the schema, and its notes'
    codes are in the documented list."""
    response = real_client.get('/en/search.json?q="priority')
    body = response.get_json()
    _check(doc, "/{locale}/search.json", "get", response.status_code, body)
    codes = doc["components"]["schemas"]["Note"]["properties"]["code"]["enum"]
    assert body["notes"] and all(n["code"] in codes for n in body["notes"])
    assert "unbalanced_quote" in {n["code"] for n in body["notes"]}


def test_the_page_for_people(client: FlaskClient, doc: dict[str, Any]) -> None:
    response = client.get("/api/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    for path, item in doc["paths"].items():
        for method in item:
            assert f"<code>{method.upper()} {path}</code>" in html
    for code in doc["components"]["schemas"]["Note"]["properties"]["code"]["enum"]:
        assert f"<td><code>{code}</code></td>" in html
    assert 'id="schema-Error"' in html and "error_local" in html
    assert 'href="/api/openapi.json"' in html


def test_every_endpoint_row_names_its_schema(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    for row in URLS.values():
        if isinstance(row, Endpoint):
            assert row.response in schemas
            assert row.body is None or row.body in schemas
