"""Redirects, permalinks, linkify, OpenSearch, caching, security headers and every error case."""

from __future__ import annotations

import json

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.web import create_app


# ---- redirects and permalinks --------------------------------------------------------------
@pytest.mark.parametrize(
    ("accept", "target"),
    [
        ("fr-FR,fr;q=0.9,en;q=0.8", "/fr/"),
        ("ja", "/ja/"),
        ("de-DE,de;q=0.9", "/en/"),
        ("", "/en/"),
        ("de;q=0.9,ja;q=0.5", "/ja/"),
        ("ja;q=0", "/en/"),
        ("ja;q=0, fr;q=0.3", "/fr/"),
    ],
)
def test_root_picks_a_locale_from_accept_language(
    client: FlaskClient, accept: str, target: str
) -> None:
    response = client.get("/", headers={"Accept-Language": accept})
    assert response.status_code == 302
    assert response.headers["Location"] == target
    assert response.headers["Vary"] == "Accept-Language"


@pytest.mark.parametrize(
    ("url", "accept", "target"),
    [
        ("/r/117.3a", "fr", "/fr/rules/117.3a"),
        ("/r/R1173a", "ja", "/ja/rules/117.3a"),
        ("/r/%EF%BC%91%EF%BC%91%EF%BC%97%EF%BC%8E%EF%BC%93%EF%BD%81", "en", "/en/rules/117.3a"),
        ("/r/116.3b?edition=2019-06-14", "en", "/en/rules/117.3b"),
        ("/r/116.3b?edition=en-2019-06-14&lang=fr", "en", "/fr/rules/117.3b"),
        ("/r/116?edition=fr-2019-06-14", "fr", "/fr/rules/117"),
        ("/r/117.3a.json", "en", "/en/rules/117.3a.json"),
        ("/r/?number=117.5&lang=ja", "en", "/ja/rules/117.5"),
        # no edition: a canonical number wins (116 is Special Actions today) ...
        ("/r/116", "en", "/en/rules/116"),
        # ... else an old number goes to the rule it became, whichever edition printed it
        ("/r/116.3b", "en", "/en/rules/117.3b"),
        ("/r/116.3b", "fr", "/fr/rules/117.3b"),
        ("/r/116.3b.json", "ja", "/ja/rules/117.3b.json"),
    ],
)
def test_permalinks_redirect_to_the_current_rule(
    client: FlaskClient, url: str, accept: str, target: str
) -> None:
    response = client.get(url, headers={"Accept-Language": accept})
    assert response.status_code == 302, response.get_data(as_text=True)[:300]
    assert response.headers["Location"] == target


def test_a_typed_number_is_resolved_once_for_the_page_and_the_permalink(app: Flask, kb) -> None:  # type: ignore[no-untyped-def]
    """find_rule says what a number names and how; the rule page and /r/ answer from it."""
    from kb.web.pages.base import PageError
    from kb.web.pages.common import find_rule

    from .conftest import OLD, _add

    _add(kb, OLD, "116.9", "A rule deleted in July 2019.")  # no canonical: deleted since
    with app.test_request_context("/"):
        found = find_rule(kb, "en", "117.3a")
        assert (found.how, found.url, found.fallback, found.via) == (
            "current",
            "/en/rules/117.3a",
            False,
            "",
        )
        assert found.rule is not None and found.rule.number == "117.3a"
        found = find_rule(kb, "en", "117.3a", read=False)  # a redirect needs no more
        assert (found.how, found.url, found.rule) == ("current", "/en/rules/117.3a", None)
        found = find_rule(kb, "fr", "116.3b")
        assert (found.how, found.url, found.rule) == ("renamed", "/fr/rules/117.3b", None)
        found = find_rule(kb, "en", "116.3b", "2019-06-14")
        assert (found.how, found.url) == ("old", "/en/rules/117.3b")
        assert found.rule is not None and found.rule.edition == OLD
        found = find_rule(kb, "fr", "116.9")
        assert (found.how, found.url, found.fallback) == ("deleted", f"/fr/{OLD}/rules/116.9", True)
        found = find_rule(kb, "en", "116.9", "2019-06-14")
        assert (found.how, found.url) == ("old", f"/en/{OLD}/rules/116.9")
        with pytest.raises(PageError) as missing:
            find_rule(kb, "en", "999.9z")
        assert missing.value.status == 404 and missing.value.data["suggestions"]
        with pytest.raises(PageError) as unknown:
            find_rule(kb, "en", "117.3a", "1999-01-01")
        assert unknown.value.status == 400
    client = app.test_client()
    assert client.get("/fr/rules/116.9").status_code == 200  # the page shows a deleted rule
    assert client.get("/r/116.9?lang=fr").headers["Location"] == f"/fr/{OLD}/rules/116.9"
    moved = client.get("/en/rules/116.9?edition=2019-06-14")
    assert moved.status_code == 302 and moved.headers["Location"] == f"/en/{OLD}/rules/116.9"


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("/en/rules/117.3a.", "/en/rules/117.3a"),
        ("/en/rules/R1173a", "/en/rules/117.3a"),
        ("/en/rules/rule%20117.3A", "/en/rules/117.3a"),
        ("/en/rules/116.3b?edition=2019-06-14", "/en/rules/117.3b"),
        ("/en/rules/116.3b.json?edition=2019-06-14", "/en/rules/117.3b.json"),
        ("/en/2019-06-14/rules/116.3b", "/en/en-2019-06-14/rules/116.3b"),
        ("/fr/glossary/trigger", "/fr/glossary/triggered%20ability"),
        ("/fr/glossary/PRIORITY", "/fr/glossary/priority"),
        ("/fr/glossary/trigger.json", "/fr/glossary/triggered%20ability.json"),
    ],
)
def test_other_spellings_redirect_permanently(client: FlaskClient, url: str, target: str) -> None:
    response = client.get(url)
    assert response.status_code == 301
    assert response.headers["Location"] == target


def test_anchor_pages_carry_the_mapping_script(client: FlaskClient) -> None:
    for url in ("/r/", "/en/rules/"):
        html = client.get(url).get_data(as_text=True)
        assert '<div id="anchor-map" data-target="/r/"' in html
        assert '<script src="/static/app.js' in html


# ---- linkify -------------------------------------------------------------------------------
def test_linkify_json(client: FlaskClient) -> None:
    text = "Per rule 117.3a <b>you</b> get priority; see also 999.9z and 116.3b."
    response = client.post("/api/linkify", json={"text": text, "lang": "en"})
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True
    assert 'href="http://localhost/en/rules/117.3a" data-rule="117.3a">' in body["html"]
    assert "&lt;b&gt;you&lt;/b&gt;" in body["html"]
    by_number = {r["number"]: r for r in body["refs"]}
    assert by_number["117.3a"]["canonical"] == "117.3a"
    # a number no current rule has is read in the newest edition that had it
    assert by_number["116.3b"]["canonical"] == "117.3b"
    assert by_number["999.9z"]["url"] is None and "999.9z</a>" not in body["html"]
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_linkify_old_numbers_through_an_edition_and_html_form(client: FlaskClient) -> None:
    response = client.post(
        "/api/linkify?format=html",
        data={"text": "voir règle 116.3b", "lang": "fr", "edition": "2019-06-14"},
    )
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert html.startswith("voir ")
    assert html.endswith('href="http://localhost/fr/rules/117.3b" data-rule="117.3b">116.3b</a>')


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"json": {"lang": "en"}}, "Missing 'text'"),
        ({"json": ["text"]}, "not a JSON object"),
        ({"json": {"text": "117", "lang": "de"}}, "Unknown language"),
        ({"json": {"text": "x" * 100_001}}, "too long"),
        ({"json": {"text": "117.1", "edition": 3}}, "'edition' must be a string"),
        ({"data": b"\xff\xfe{", "content_type": "application/json"}, "not valid UTF-8"),
        ({"data": b'{"text": "x"', "content_type": "application/json"}, "not valid JSON"),
        # a lone surrogate, escaped in JSON, in the text or any other field
        ({"data": b'{"text": "\\ud800 rule 117.1"}', "content_type": "application/json"}, "lone"),
        (
            {"data": b'{"text": "117", "lang": "\\udfff"}', "content_type": "application/json"},
            "lone",
        ),
        # the same code point as raw (invalid) UTF-8 bytes
        (
            {"data": b'{"text": "\xed\xa0\x80 rule 117.1"}', "content_type": "application/json"},
            "UTF-8",
        ),
        # nested far below the size limit, far beyond the parser's recursion limit
        ({"data": b"[" * 100_000, "content_type": "application/json"}, "nested too deeply"),
        ({"data": b'{"a": ' * 50_000, "content_type": "application/json"}, "nested too deeply"),
    ],
)
def test_linkify_rejects_bad_bodies(client: FlaskClient, kwargs: dict, message: str) -> None:
    response = client.post("/api/linkify", **kwargs)
    assert response.status_code == 400
    body = response.get_json()
    assert body["ok"] is False and body["status"] == 400 and message in body["error"]


def test_linkify_keeps_valid_pairs_and_brackets_in_strings(client: FlaskClient) -> None:
    # a surrogate pair escaped in JSON is one character; brackets inside a string do not nest
    body = '{"text": "\\ud83d\\ude00 [[[[ rule 117.1 ]]]]", "lang": "en"}'
    response = client.post("/api/linkify", data=body, content_type="application/json")
    assert response.status_code == 200
    assert "\U0001f600" in response.get_json()["html"]


def test_linkify_preflight_and_method(client: FlaskClient) -> None:
    pre = client.options("/api/linkify")
    assert pre.status_code == 204
    assert "POST" in pre.headers["Access-Control-Allow-Methods"]
    get = client.get("/api/linkify")
    assert get.status_code == 405 and get.get_json()["ok"] is False


# ---- OpenSearch ----------------------------------------------------------------------------
def test_opensearch_description_and_suggestions(client: FlaskClient) -> None:
    xml = client.get("/fr/opensearch.xml")
    assert xml.mimetype == "application/opensearchdescription+xml"
    text = xml.get_data(as_text=True)
    assert 'template="http://localhost/fr/search?q={searchTerms}"' in text
    assert 'type="application/x-suggestions+json"' in text
    assert "<ShortName>Règles MTG (fr)</ShortName>" in text
    html = client.get("/fr/").get_data(as_text=True)
    assert 'rel="search" type="application/opensearchdescription+xml"' in html
    suggest = client.get("/en/suggest?q=trig").get_json()
    assert suggest == ["trig", ["Triggered Ability"]]


# ---- caching -------------------------------------------------------------------------------
def test_etag_from_content_hash_and_304(client: FlaskClient) -> None:
    first = client.get("/en/rules/117")
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "public, max-age=300"
    again = client.get("/en/rules/117", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    other = client.get("/en/rules/117.json")
    assert other.headers["ETag"] != etag
    stale = client.get("/en/rules/117", headers={"If-None-Match": '"nope"'})
    assert stale.status_code == 200


def test_etag_changes_with_the_build(tmp_path, kb) -> None:  # type: ignore[no-untyped-def]
    one = create_app({"INSTANCE": tmp_path, "KB": kb}).test_client().get("/en/rules/117")
    kb.content_hash = "another-build"
    two = create_app({"INSTANCE": tmp_path, "KB": kb}).test_client().get("/en/rules/117")
    assert one.headers["ETag"] != two.headers["ETag"]


def test_revalidation_without_the_page_cache(tmp_path, kb) -> None:  # type: ignore[no-untyped-def]
    client = create_app({"INSTANCE": tmp_path, "KB": kb, "PAGE_CACHE": False}).test_client()
    etag = client.get("/fr/glossary/").headers["ETag"]
    assert client.get("/fr/glossary/", headers={"If-None-Match": etag}).status_code == 304


def test_cached_page_is_served_identically(client: FlaskClient) -> None:
    one, two = client.get("/ja/rules/117.3a"), client.get("/ja/rules/117.3a")
    assert one.data == two.data and one.headers["ETag"] == two.headers["ETag"]
    assert two.headers["Content-Security-Policy"]


# ---- security headers ----------------------------------------------------------------------
@pytest.mark.parametrize("url", ["/en/", "/en/rules/117.json", "/nowhere", "/r/999.9"])
def test_security_headers_everywhere(client: FlaskClient, url: str) -> None:
    headers = client.get(url).headers
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "strict-origin-when-cross-origin"


def test_no_inline_script_or_style(client: FlaskClient) -> None:
    for url in ("/en/", "/en/rules/117", "/en/examples/shock-response", "/r/"):
        html = client.get(url).get_data(as_text=True)
        assert "<script>" not in html and " style=" not in html and "<style" not in html
        assert " on" + "click=" not in html


# ---- errors --------------------------------------------------------------------------------
def test_unknown_rule_is_a_404_with_nearest_rules(client: FlaskClient) -> None:
    page = client.get("/en/rules/117.9")
    assert page.status_code == 404
    assert 'href="/en/rules/117.3"' in page.get_data(as_text=True)
    body = client.get("/en/rules/117.9.json").get_json()
    assert body["ok"] is False and body["status"] == 404
    assert "117" in [s["number"] for s in body["suggestions"]]


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/de/rules/117", 404),
        ("/en/rules/banana", 404),
        ("/en/rules/" + "9" * 5000, 414),
        ("/en/rules/117.3a%00", 404),
        ("/en/rules/%FF%FE", 404),
        ("/en/rules/1000", 404),
        ("/en/rules/0", 404),
        ("/en/rules/-117", 404),
        ("/en/rules/117.3a?edition=1999", 400),
        ("/en/1999-01-01/rules/117", 404),
        ("/en/en-2019-06-14/rules/117.5", 404),
        ("/en/search?q=" + "x" * 5000, 414),
        ("/en/search?q=a%00b", 400),
        ("/en/search?q=x&lang=de", 400),
        ("/en/search?q=x&kind=%3Cscript%3E", 400),
        ("/en/search?q=x&page=0", 400),
        ("/en/search?q=x&page=-1", 400),
        ("/en/search?q=x&page=99999999999999999999", 400),
        ("/en/glossary/" + "z" * 3000, 414),
        ("/en/glossary/" + "z" * 300, 404),
        ("/en/editions/a..b", 404),
        ("/en/examples/%3Cimg%3E", 404),
        ("/r/" + "1" * 300, 404),
        ("/r/117?edition=%00", 400),
        ("/en/suggest?q=x&lang=xx", 400),
    ],
)
def test_hostile_inputs_get_clear_errors(client: FlaskClient, url: str, status: int) -> None:
    page = client.get(url)
    assert page.status_code == status, page.get_data(as_text=True)[:300]
    html = page.get_data(as_text=True)
    assert "Traceback" not in html and "<script>" not in html.split("<main", 1)[-1]
    assert "<img>" not in html


@pytest.mark.parametrize("url", ["/en/rules/999.json", "/en/search.json?q=x&lang=de"])
def test_json_errors_use_the_envelope(client: FlaskClient, url: str) -> None:
    response = client.get(url)
    body = response.get_json()
    assert body["ok"] is False and body["status"] == response.status_code
    assert isinstance(body["error"], str) and body["error"]


def test_an_unexpected_failure_is_a_clean_500(app: Flask) -> None:
    def boom() -> str:
        raise RuntimeError("secret detail")

    app.add_url_rule("/boom", "boom", boom)
    response = app.test_client().get("/boom")
    assert response.status_code == 500
    text = response.get_data(as_text=True)
    assert "secret detail" not in text and "Traceback" not in text


def test_search_without_an_index_says_so(client: FlaskClient) -> None:
    page = client.get("/fr/search?q=priorit%C3%A9")
    assert page.status_code == 503
    assert "La recherche est indisponible" in page.get_data(as_text=True)
    assert client.get("/fr/search").status_code == 200


def test_content_language_follows_the_locale(client: FlaskClient) -> None:
    assert client.get("/ja/rules/117").headers["Content-Language"] == "ja"
    assert "Content-Language" not in client.get("/ja/rules/117.json").headers


def test_page_cache_is_bounded_by_bytes() -> None:
    from kb.web.app import PageCache

    def app(environ, start_response):  # type: ignore[no-untyped-def]
        environ["kb.cacheable"] = True
        start_response("200 OK", [("Content-Type", "text/plain"), ("ETag", '"x"')])
        return [environ["PATH_INFO"].encode() * 100]

    cache = PageCache(app, size=100, max_bytes=1000)
    for i in range(10):
        path = f"/p{i}"
        body = b"".join(cache({"REQUEST_METHOD": "GET", "PATH_INFO": path}, lambda *a: None))
        assert body == path.encode() * 100
    assert cache.bytes <= 1000 and len(cache.entries) == 3
    assert list(cache.entries) == ["/p7?", "/p8?", "/p9?"]


def test_old_number_page_redirects_to_its_current_rule(client: FlaskClient) -> None:
    response = client.get("/fr/rules/116.3b")
    assert response.status_code == 302 and response.headers["Location"] == "/fr/rules/117.3b"
    assert client.get("/en/rules/116").status_code == 200  # a canonical number stays put


@pytest.mark.parametrize("url", ["/r/116.3b", "/en/rules/116.3b", "/r/116.3b.json"])
def test_old_numbers_of_the_real_build_reach_their_canonical(
    real_client: FlaskClient, url: str
) -> None:
    # On the embedded corpus alone 116.3b is the French wiki's numbering, with the official
    # editions the 2019-06-14 one; either way the rule became 117.3b.
    response = real_client.get(url, headers={"Accept-Language": "en"}, follow_redirects=True)
    assert response.status_code == 200
    assert response.request.path == "/en/rules/117.3b" + (".json" if url.endswith("json") else "")
    json_url = response.request.path.removesuffix(".json") + ".json"
    assert real_client.get(json_url).get_json()["canonical"] == "117.3b"
    special = real_client.get("/r/116.json", headers={"Accept-Language": "en"})
    assert special.headers["Location"] == "/en/rules/116.json"


def test_render_get_without_a_server(web_instance) -> None:  # type: ignore[no-untyped-def]
    from kb.build import load
    from kb.web import render_get

    # Canonical 117 is printed as 116 by the embedded corpus's only English text of Timing and
    # Priority (2010-2019 numbering), as 117 by the official editions.
    current = load(web_instance).current("117", "en")
    assert current is not None
    status, body = render_get(web_instance, "/en/rules/117.json")
    data = json.loads(body)
    assert status == 200 and data["canonical"] == "117" and data["number"] == current.number
    status, body = render_get(web_instance, "/en/rules/999.9")
    assert status == 404 and "<!doctype html>" in body


@pytest.mark.parametrize("path", ["/r/117.3b", "/r/117.3b.json", "/"])
def test_render_get_follows_redirects(web_instance, path: str) -> None:  # type: ignore[no-untyped-def]
    from kb.web import render_get

    status, body = render_get(web_instance, path)
    assert "Redirecting" not in body and "redirected automatically" not in body
    if path == "/r/117.3b":
        assert status == 200 and '<article class="main-rule"' in body
    elif path.endswith(".json"):
        assert status == 200 and json.loads(body)["canonical"] == "117.3b"
    else:
        assert status == 200 and '<html lang="en">' in body


def test_switcher_keeps_the_query_and_works_on_error_pages(client: FlaskClient) -> None:
    search = client.get("/fr/search?q=pile&lang=fr").get_data(as_text=True)
    assert 'href="/ja/search?q=pile&amp;lang=fr" hreflang="ja"' in search
    missing = client.get("/fr/rules/117.9").get_data(as_text=True)
    assert 'href="/ja/rules/117.9" hreflang="ja"' in missing


def test_every_route_is_documented(app: Flask) -> None:
    from kb.web import URLS

    documented = {u.replace("<locale>", "<locale:locale>") for u in URLS}
    for rule in app.url_map.iter_rules():
        if rule.rule.endswith(".json") and rule.endpoint.endswith("_json"):
            continue  # the JSON twins are documented with their page
        assert rule.rule in documented, f"{rule.rule} is missing from kb.web.URLS"
    assert len(documented) == len(URLS)


@pytest.mark.parametrize("url", ["/r/117.3a?lang=xx", "/r/117.3a.json?lang=xx", "/?lang=de"])
def test_an_unknown_language_in_lang_is_said_not_replaced_by_english(
    client: FlaskClient, url: str
) -> None:
    response = client.get(url, headers={"Accept-Language": "fr"})
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    if url.split("?")[0].endswith(".json"):
        assert response.json["error"].startswith("Unknown language “")  # type: ignore[index]
        assert "en, fr or ja" in response.json["error"]  # type: ignore[index]
    else:
        assert "Langue" in body and "en, fr" in body  # the reader's language, the choices
    assert client.get("/r/117.3a?lang=ja").headers["Location"].startswith("/ja/rules/")
