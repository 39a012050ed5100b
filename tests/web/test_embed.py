"""Unfurls: the meta tags a chat client reads on each page kind, in each locale, and oEmbed."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.knowledge.model import KnowledgeBase
from kb.web import create_app, embed
from kb.web.pages.common import short


class _Meta(HTMLParser):
    """What an unfurling crawler reads: the <head>'s meta properties and link rels."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.links: dict[str, list[dict[str, str | None]]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("property") or a.get("name")):
            self.meta[str(a.get("property") or a.get("name"))] = str(a.get("content"))
        if tag == "link" and a.get("rel"):
            self.links.setdefault(str(a["rel"]), []).append(a)


def unfurl(client: FlaskClient, url: str) -> _Meta:
    response = client.get(url)
    assert response.status_code == 200, url
    parser = _Meta()
    parser.feed(response.get_data(as_text=True))
    return parser


RULE_CARDS = [
    (
        "en",
        "Rule 117.3b",
        "The player who cast a spell gets priority afterward.",
        "en_US",
    ),
    ("fr", "Règle 117.3b", "Le joueur qui a lancé un sort reçoit ensuite la priorité.", "fr_FR"),
    ("ja", "ルール117.3b", "呪文を唱えたプレイヤーはその後優先権を得る。", "ja_JP"),
]


@pytest.mark.parametrize(("locale", "title", "text", "og_locale"), RULE_CARDS)
def test_a_rule_page_unfurls_with_number_text_and_url(
    client: FlaskClient, locale: str, title: str, text: str, og_locale: str
) -> None:
    page = unfurl(client, f"/{locale}/rules/117.3b")
    url = f"http://localhost/{locale}/rules/117.3b"
    assert page.meta["og:title"] == title
    assert page.meta["og:description"] == text
    assert page.meta["og:url"] == url
    assert page.meta["og:type"] == "article"
    assert page.meta["og:locale"] == og_locale
    assert page.meta["twitter:card"] == "summary"
    assert page.meta["twitter:title"] == title
    assert page.meta["twitter:description"] == text
    assert page.meta["description"] == text
    assert page.links["canonical"][0]["href"] == url
    (oembed,) = [a for a in page.links["alternate"] if a.get("type") == "application/json+oembed"]
    assert str(oembed["href"]).startswith("http://localhost/api/oembed?url=http")


def test_a_heading_rule_shows_its_title_and_first_subrule(client: FlaskClient) -> None:
    page = unfurl(client, "/en/rules/117")
    assert page.meta["og:title"] == "Rule 117 · Timing and Priority"
    assert page.meta["og:description"].startswith("117.1 Unless a spell or ability")


def test_a_section_lists_its_rules(client: FlaskClient) -> None:
    page = unfurl(client, "/en/rules/1")
    assert page.meta["og:title"] == "Rule 1 · Game Concepts"
    assert page.meta["og:description"] == "116 Special Actions · 117 Timing and Priority"


def test_an_old_number_unfurls_as_the_page_it_leads_to(client: FlaskClient) -> None:
    """A French text numbers the rule 116.3b (before 2019): its page and card are 117.3b's."""
    response = client.get("/fr/rules/116.3b", follow_redirects=True)
    assert response.request.path == "/fr/rules/117.3b"
    page = _Meta()
    page.feed(response.get_data(as_text=True))
    assert page.meta["og:title"] == "Règle 117.3b"


@pytest.mark.parametrize(
    ("url", "title", "description"),
    [
        (
            "/fr/glossary/priority",
            "Priority (glossaire)",
            "Which player can take actions at any given time. See rule 117, “Timing and Priority.”",
        ),
        (
            "/en/editions/en-2019-06-14..en-2019-07-12",
            "Changes: Edition of June 14, 2019 → Edition of July 12, 2019",
            "2 moved, 1 edited, 1 created, 0 deleted rules.",
        ),
        (
            "/ja/examples/shock-response",
            "例：Shock in response",
            "Alice casts Shock; she gets priority again (rule 117.3b). ルール117.3b、117.4。",
        ),
        (
            "/en/en-2019-06-14/rules/116.3b",
            "Rule 116.3b · Edition of June 14, 2019",
            "The player who cast a spell receives priority afterward.",
        ),
    ],
)
def test_every_page_kind_unfurls(
    client: FlaskClient, url: str, title: str, description: str
) -> None:
    page = unfurl(client, url)
    assert (page.meta["og:title"], page.meta["og:description"]) == (title, description)
    assert page.meta["og:url"] == "http://localhost" + url
    # oEmbed answers for the same page with the same card.
    card = client.get("/api/oembed", query_string={"url": page.meta["og:url"]}).get_json()
    assert (card["title"], card["description"], card["url"]) == (
        title,
        description,
        "http://localhost" + url,
    )


@pytest.mark.parametrize("url", ["/en/", "/fr/rules/", "/en/glossary/", "/en/search?q=x"])
def test_pages_without_a_card_have_no_unfurl_tags(client: FlaskClient, url: str) -> None:
    page = _Meta()
    page.feed(client.get(url).get_data(as_text=True))
    assert not any(k.startswith(("og:", "twitter:")) for k in page.meta)


def test_meta_content_is_escaped(kb: KnowledgeBase, client: FlaskClient) -> None:
    rule = kb.rules["en-2019-07-12"]["117.3b"]
    rule.text = 'A "quoted" <script>alert(1)</script> & more.'
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "<script>alert" not in html
    page = _Meta()
    page.feed(html)
    assert page.meta["og:description"] == rule.text


@pytest.mark.parametrize(
    ("url", "title"),
    [
        ("/r/116.3b?edition=2019-06-14", "Rule 117.3b"),
        ("/fr/rules/116.3a?edition=fr-2019-06-14", "Règle 117.3a"),
        ("/en/rules/117.3b?edition=1999-01-01", None),
    ],
)
def test_oembed_follows_an_old_number_of_an_edition(
    client: FlaskClient, url: str, title: str | None
) -> None:
    response = client.get("/api/oembed", query_string={"url": url})
    assert response.status_code == (200 if title else 404)
    if title:
        assert response.get_json()["title"] == title


def test_oembed_reads_an_encoded_address(client: FlaskClient) -> None:
    card = client.get(
        "/api/oembed", query_string={"url": "http://localhost/en/glossary/active%20player"}
    ).get_json()
    assert card["title"] == "Active Player (glossary)"
    assert card["url"] == "http://localhost/en/glossary/active%20player"


def test_oembed_card(client: FlaskClient) -> None:
    response = client.get("/api/oembed?url=http://localhost/r/116.3b%3Flang%3Dfr&maxwidth=320")
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    card = response.get_json()
    assert card["version"] == "1.0" and card["type"] == "rich"
    assert card["title"] == "Règle 117.3b"
    assert card["url"] == "http://localhost/fr/rules/117.3b"
    assert card["lang"] == "fr" and card["kind"] == "rule" and card["number"] == "117.3b"
    assert card["provider_name"] == "Règles MTG"
    assert card["width"] == 320 and 60 <= card["height"] <= 2000
    assert card["html"].startswith('<blockquote class="kb-unfurl"')
    assert "Le joueur qui a lancé un sort reçoit ensuite la priorité." in card["html"]


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ({}, 400, "Missing 'url'"),
        ({"url": "https://elsewhere.example/en/rules/117"}, 404, "No rule, glossary entry"),
        ({"url": "javascript:alert(1)"}, 404, "No rule, glossary entry"),
        ({"url": "/en/rules/999.9"}, 404, "No rule, glossary entry"),
        ({"url": "/en/search?q=priority"}, 404, "No rule, glossary entry"),
        ({"url": "/en/rules/117", "format": "xml"}, 501, "Only format=json"),
        ({"url": "/en/rules/117", "maxwidth": "wide"}, 400, "must be a whole number"),
        ({"url": "/xx/" + "9" * 3000}, 414, "too long"),
    ],
)
def test_oembed_errors(client: FlaskClient, query: dict, status: int, message: str) -> None:
    response = client.get("/api/oembed", query_string=query)
    assert response.status_code == status
    body = response.get_json()
    assert body["ok"] is False and body["status"] == status and message in body["error"]


def test_public_url_names_the_canonical_address(kb: KnowledgeBase, tmp_path) -> None:  # type: ignore[no-untyped-def]
    app: Flask = create_app(
        {"INSTANCE": tmp_path, "KB": kb, "TESTING": True, "PUBLIC_URL": "https://rules.example/"}
    )
    client = app.test_client()
    page = unfurl(client, "/en/rules/117.3b")
    assert page.meta["og:url"] == "https://rules.example/en/rules/117.3b"
    card = client.get("/api/oembed?url=https://rules.example/en/rules/117.3b").get_json()
    assert card["url"] == "https://rules.example/en/rules/117.3b"
    app.extensions["kb_search"].close()


def test_linkify_links_a_range_once(client: FlaskClient) -> None:
    body = client.post(
        "/api/linkify", json={"text": "See rules 117.3a–b and CR 117.5.", "lang": "en"}
    ).get_json()
    assert body["html"] == (
        'See rules <a class="ref" href="http://localhost/en/rules/117.3a" data-rule="117.3a" '
        'data-rules="117.3a 117.3b">117.3a–b</a> and CR <a class="ref" '
        'href="http://localhost/en/rules/117.5" data-rule="117.5">117.5</a>.'
    )
    assert [(r["number"], r["label"]) for r in body["refs"]] == [
        ("117.3a", "117.3a–b"),
        ("117.3b", "117.3a–b"),
        ("117.5", "117.5"),
    ]


def test_a_failing_card_never_costs_the_page(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from kb.web import embed

    def broken(*args: object) -> None:
        raise RuntimeError("store unavailable")

    # A page's card comes from its own matched endpoint (_card); other URLs go through unfurl.
    monkeypatch.setattr(embed, "unfurl", broken)
    monkeypatch.setattr(embed, "_card", broken)
    response = client.get("/en/rules/117.3b")
    assert response.status_code == 200
    assert 'property="og:title"' not in response.get_data(as_text=True)
    assert "no unfurl card for /en/rules/117.3b" in caplog.text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="abcé日本 ", min_size=0, max_size=40),
            st.sampled_from([" ", "  ", "\n", "\t", "\u3000", " \n "]),
        ),
        max_size=60,
    ),
    st.integers(min_value=1, max_value=120),
)
def test_a_card_squeezes_only_what_it_shows(pieces: list[str], limit: int) -> None:
    # The card's description: the start of a long text squeezed, cut as the whole text is.
    text = "".join(pieces)
    whole = " ".join(text.split())
    start = embed._squeezed(text, limit)
    assert whole.startswith(start)
    assert short(start, limit) == short(whole, limit)
    title = whole[:limit]
    assert (start == title) == (whole == title)
