"""Hostile input over every route and parameter: thousands of generated requests, never a 5xx,
never a visitor's input unescaped in HTML.

Bounded and reproducible: a seeded generator draws :data:`REQUESTS` requests from every URL of
:data:`kb.web.URLS` (each path segment and query parameter filled with hostile strings: markup,
quotes, template syntax, control characters, invalid UTF-8 and lone surrogates, overlong and
deeply nested values) plus the linkify bodies that once crashed the server. It runs against the
real build of the embedded corpus, search index included.
"""

from __future__ import annotations

import json
import random
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.web import URLS, create_app

REQUESTS = 5200
SEED = 20261124

#: Strings a visitor must never see reflected as markup; each holds a marker (``{n}``) so that
#: a reflection is traced to the request that made it.
MARKUP = [
    '<script>alert("k{n}")</script>',
    '"><img src=x onerror=alert(k{n})>',
    "'><svg/onload=alert(k{n})>",
    '<a href="javascript:alert(k{n})">x</a>',
    "</title><b>k{n}</b>",
    '<iframe srcdoc="k{n}">',
    "<!--k{n}-->",
    '" autofocus onfocus="alert(k{n})',
]
#: Hostile strings without markup: they must not crash anything.
OTHER = [
    "{{7*7}}k{n}",
    "%(x)sk{n}",
    "{0}{1}k{n}",
    "../../etc/passwd",
    "..%2f..%2fk{n}",
    "\x00k{n}",
    "\x1b[31mk{n}",
    "\u202ek{n}\u202c",
    "k{n}\ufeff\u200b",
    "１１７．３ｂ",
    "117..3",
    "117.",
    "-1",
    "99999999999999999999999",
    "1e308",
    "NaN",
    "0",
    "117.3bb",
    "1000.1",
    "🂡k{n}",
    "e\u0301\u0301\u0301",
    "優先権",
    "priorité",
    "AND OR NOT (",
    '"unclosed phrase',
    "*" * 40,
    "a" * 300,
    "x" * 3000,
    " ",
    "",
]
#: Percent-encoded bytes that are not UTF-8 (a lone surrogate, a BOM of UTF-16, a stray byte).
RAW = ["%ED%A0%80", "%FF%FE", "%C0%AF", "%E2%82", "%F4%90%80%80"]
LOCALES = ["en", "fr", "ja", "de", "EN", "x" * 50]
EDITIONS = ["en-2019-06-14", "2019-06-14", "2019", "en-2024-07-30", "ja-2023-11-17", "bogus"]
NUMBERS = ["117.3b", "116.3b", "117", "505", "1", "800.4a", "117.9z"]
KEYS = ["priority", "stack", "apnap", "Priority", "active player"]
EXAMPLES = ["117-3b-active-player-after-resolution", "nope"]


@pytest.fixture(scope="module")
def hostile_app(embedded_instance: Path) -> Iterator[Flask]:
    app = create_app({"INSTANCE": embedded_instance})
    yield app
    app.extensions["kb_search"].close()


def _value(rng: random.Random, n: int, good: list[str]) -> tuple[str, str | None]:
    """A parameter value as sent (URL-quoted) and the markup a reflection would show."""
    roll = rng.random()
    if roll < 0.3:
        return urllib.parse.quote(rng.choice(good), safe=""), None
    if roll < 0.6:
        text = rng.choice(MARKUP).replace("k{n}", f"k{n}")
        return urllib.parse.quote(text, safe=""), text
    if roll < 0.9:
        return urllib.parse.quote(rng.choice(OTHER).replace("k{n}", f"k{n}"), safe=""), None
    return rng.choice(RAW) + urllib.parse.quote(f"k{n}"), None


Request = tuple[str, str, dict, list[str]]


def _requests(rng: random.Random) -> Iterator[Request]:
    """(method, url, client kwargs, markup sent) forever, over every route."""
    n = 0
    while True:
        n += 1
        loc = rng.choice(LOCALES[:3]) if rng.random() < 0.9 else rng.choice(LOCALES)
        num, mark1 = _value(rng, n, NUMBERS)
        ed, mark2 = _value(rng, n, EDITIONS)
        key, mark3 = _value(rng, n, KEYS)
        q, mark4 = _value(rng, n, ["priority", "priorité", "優先権", "117.3b", "stak"])
        ex, mark5 = _value(rng, n, EXAMPLES)
        marks = [m for m in (mark1, mark2, mark3, mark4, mark5) if m]
        json_suffix = ".json" if rng.random() < 0.25 else ""
        page = rng.choice(["1", "2", "0", "-1", "abc", "999999", q])
        kind = rng.choice(["rules", "glossary", "example", "", "bogus", key])
        lang = rng.choice(["en", "fr", "ja", "", "de", key])
        urls = [
            f"/{loc}/{json_suffix and 'index.json'}",
            f"/{loc}/rules{'.json' if json_suffix else '/'}",
            f"/{loc}/rules/{num}{json_suffix}",
            f"/{loc}/rules/{num}{json_suffix}?edition={ed}",
            f"/{loc}/{ed}/rules/{num}{json_suffix}",
            f"/{loc}/compare/{num}{json_suffix}?langs={lang},{rng.choice(['en', 'ja', key])}",
            f"/{loc}/search{json_suffix}?q={q}&lang={lang}&kind={kind}&edition={ed}&page={page}",
            f"/{loc}/suggest?q={q}&lang={lang}",
            f"/{loc}/glossary{'.json' if json_suffix else '/'}",
            f"/{loc}/glossary/{key}{json_suffix}",
            f"/{loc}/editions{'.json' if json_suffix else '/'}?from={ed}&to={num}",
            f"/{loc}/editions/{ed}..{num}{json_suffix}",
            f"/{loc}/editions/{ed}{json_suffix}",
            f"/{loc}/examples{'.json' if json_suffix else '/'}",
            f"/{loc}/examples/{ex}{json_suffix}",
            f"/{loc}/editions/{ed}/rules{'.json' if json_suffix else '/'}",
            f"/{loc}/editions/{ed}/rules/all{json_suffix}",
            f"/{loc}/commentary/{key}{json_suffix}",
            f"/{loc}/tournament{'.json' if json_suffix else '/'}",
            f"/{loc}/tournament/{key}{json_suffix}",
            f"/{loc}/cards{'.json' if json_suffix else '/'}?q={key}",
            f"/{loc}/cards/{key}{json_suffix}",
            f"/{loc}/opensearch.xml",
            "/opensearch.xml",
            f"/r/{num}{json_suffix}?lang={lang}&edition={ed}",
            f"/r/?number={num}&lang={lang}",
            f"/?lang={lang}",
            f"/static/{key}",
            f"/{q}/{num}/{key}",
            "/api/?" + urllib.parse.urlencode({"q": q}),
            "/api/openapi.json",
            "/api/oembed?"
            + urllib.parse.urlencode(
                {
                    "url": rng.choice(
                        [
                            f"http://localhost/{loc}/rules/{num}",
                            f"/{loc}/glossary/{key}",
                            f"/{loc}/editions/{ed}..{num}",
                            f"/{loc}/examples/{ex}",
                            f"javascript:{key}",
                            key,
                        ]
                    ),
                    "format": rng.choice(["json", "xml", key]),
                    "maxwidth": rng.choice(["300", "-1", "abc", key]),
                }
            ),
        ]
        url = rng.choice(urls)
        headers = {}
        if rng.random() < 0.2:
            headers["Accept-Language"] = rng.choice(
                ["*;q=abc", "fr-CA;q=2, ja;q=-1", "x" * 500, "en-US,en;q=0.5", ";;;,,,"]
            )
        if rng.random() < 0.1:
            headers["If-None-Match"] = rng.choice(['"abc"', "*", "W/" + "x" * 200])
        method = "GET" if rng.random() < 0.93 else rng.choice(["HEAD", "POST", "PUT", "DELETE"])
        yield method, url, {"headers": headers}, marks
        if rng.random() < 0.12:
            yield _linkify(rng, n)
        # The playground's requests draw from their own generator, so the stream above stays
        # what it was before they were added.
        mine = random.Random(n)
        if mine.random() < 0.05:
            yield (
                mine.choice(["GET", "GET", "HEAD", "POST"]),
                mine.choice(
                    [
                        f"/{loc}/play{json_suffix}?example={ex}&block={page}",
                        f"/{loc}/play{json_suffix}?s={q}",
                        f"/{loc}/play{json_suffix}?s={ex}&example={ex}",
                    ]
                ),
                {"headers": headers},
                marks,
            )
        if mine.random() < 0.03:
            yield _run(mine, n)


def _linkify(rng: random.Random, n: int) -> Request:
    """A POST /api/linkify with a hostile body."""
    markup = rng.choice(MARKUP).replace("k{n}", f"k{n}")
    text = markup + " see rule 117.3b and 116.3a"
    bodies: list[tuple[bytes, str]] = [
        (json.dumps({"text": text, "lang": rng.choice(["en", "fr", "ja", "xx"])}).encode(), "j"),
        (json.dumps({"text": text, "edition": rng.choice(EDITIONS)}).encode(), "j"),
        (b'{"text": "\\ud800 rule 117.1"}', "j"),
        (b'{"text": "ok", "lang": "\\udfff"}', "j"),
        (b'{"text": "\xed\xa0\x80 rule 117.1"}', "j"),
        (b"[" * rng.choice([50, 1000, 100_000]), "j"),
        (b'{"a":' * 5000 + b"1" + b"}" * 5000, "j"),
        (b'{"text": ' + json.dumps("x" * 100_001).encode() + b"}", "j"),
        (b"\xff\xfe{\x00}", "j"),
        (b"text=" + urllib.parse.quote(text).encode() + b"&format=html", "f"),
        (b"text=%ED%A0%80+rule+117.1&lang=%FF", "f"),
        (b"x" * (2 << 20), "f"),
        (json.dumps([text]).encode(), "j"),
        (b"null", "j"),
    ]
    body, kind = rng.choice(bodies)
    content_type = "application/json" if kind == "j" else "application/x-www-form-urlencoded"
    url = "/api/linkify" + rng.choice(["", "?format=html", "?format=%3Cscript%3E"])
    return "POST", url, {"data": body, "content_type": content_type}, [markup]


def _run(rng: random.Random, n: int) -> Request:
    """A POST /api/run (the playground) with a hostile scenario or body."""
    markup = rng.choice(MARKUP).replace("k{n}", f"k{n}")
    scenario = f"players: Alice, Bob\nAlice casts {markup}\n? life {markup}: 3"
    body = rng.choice(
        [
            json.dumps({"scenario": scenario, "locale": rng.choice(["en", "fr", "ja", markup])}),
            json.dumps({"scenario": [scenario]}),
            "[" * 1000,
            '{"scenario": "\\ud800"}',
        ]
    )
    return "POST", "/api/run", {"data": body, "content_type": "application/json"}, [markup]


def test_hostile_requests_never_5xx_nor_reflect_markup(hostile_app: Flask) -> None:
    client: FlaskClient = hostile_app.test_client()
    rng = random.Random(SEED)
    statuses: Counter[int] = Counter()
    routes: Counter[str] = Counter()
    failures: list[str] = []
    for i, (method, url, kwargs, marks) in enumerate(_requests(rng)):
        if i >= REQUESTS:
            break
        response = client.open(url, method=method, **kwargs)
        statuses[response.status_code] += 1
        routes[url.split("?", 1)[0].split("/")[2 if url.count("/") > 1 else 1][:12]] += 1
        # oEmbed's own answer to a format it does not serve is 501 (oEmbed 1.0, section 2.3.4)
        by_spec = response.status_code == 501 and url.startswith("/api/oembed")
        if response.status_code >= 500 and not by_spec:
            failures.append(f"{response.status_code} {method} {url[:200]}")
            continue
        if marks and response.mimetype == "text/html":
            body = response.get_data(as_text=True)
            failures.extend(
                f"reflected {mark!r} on {method} {url[:200]}" for mark in marks if mark in body
            )
    assert sum(statuses.values()) >= 5000
    assert not failures, "\n".join(failures[:20])
    # every family of route was reached, with answers of every kind
    assert {200, 301, 302, 400, 404, 405}.issubset(statuses), statuses
    assert statuses[413] > 0 or statuses[400] > 0


def test_every_route_is_in_the_generator() -> None:
    # A new route added to URLS must be added to the hostile generator too.
    generated = {
        "/",
        "/<locale>/",
        "/<locale>/rules/",
        "/<locale>/rules/<number>",
        "/<locale>/<edition>/rules/<number>",
        "/<locale>/compare/<number>",
        "/<locale>/search",
        "/<locale>/suggest",
        "/<locale>/glossary/",
        "/<locale>/glossary/<key>",
        "/<locale>/editions/",
        "/<locale>/editions/<span>",
        "/<locale>/examples/",
        "/<locale>/examples/<example_id>",
        "/<locale>/editions/<edition>/rules/",
        "/<locale>/editions/<edition>/rules/all",
        "/<locale>/commentary/<comment_id>",
        "/<locale>/tournament/",
        "/<locale>/tournament/<text>",
        "/<locale>/cards/",
        "/<locale>/cards/<name>",
        "/<locale>/opensearch.xml",
        "/opensearch.xml",
        "/r/<number>",
        "/r/",
        "/api/linkify",
        "/api/run",
        "/<locale>/play",
        "/api/",
        "/api/oembed",
        "/api/openapi.json",
        "/static/<path:filename>",
    }
    missing = set(URLS) - generated
    assert not missing, f"routes the hostile test does not reach: {sorted(missing)}"
