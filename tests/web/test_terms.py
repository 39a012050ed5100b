"""Glossary terms are linked inline in every language, with their definition for the hover."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

TERM_LINK = re.compile(r'<a class="term" href="([^"]+)" data-term="([^"]+)">')


def _entry(html: str, key: str) -> re.Match[str] | None:
    """The terms box's entry of a key: (local name or None, English term, English definition)."""
    return re.search(
        rf'<dt data-term="{re.escape(key)}">(?:<span class="term-local">([^<]+)</span> \()?'
        r'<a href="[^"]+" lang="en">([^<]+)</a>\)?</dt>\s*<dd lang="en">([^<]+)</dd>',
        html,
    )


@pytest.mark.parametrize(
    ("url", "key", "local", "official"),
    [
        ("/fr/rules/117.3b", "priority", "priorité", False),
        # The embedded corpus has no English glossary entry for "special action".
        ("/ja/rules/116.2a", "special action", "特別な処理", True),
    ],
)
def test_translated_rule_links_terms_with_the_english_definition(
    request: pytest.FixtureRequest,
    real_client: FlaskClient,
    url: str,
    key: str,
    local: str,
    official: bool,
) -> None:
    if official:
        request.getfixturevalue("cr_en_dir")
    html = real_client.get(url).get_data(as_text=True)
    article = html.split('<article class="main-rule"', 1)[1].split("</article>", 1)[0]
    links = dict((k, href) for href, k in TERM_LINK.findall(article))
    assert key in links, f"no inline link to the glossary term {key!r} on {url}"
    # The hover reads the definition from the page's list; with no glossary of its own the
    # language shows the English entry, marked as English, after the term base's local name.
    entry = _entry(html, key)
    assert entry is not None and len(entry.group(3)) > 20
    assert entry.group(1) == local and entry.group(2).lower() == key
    for href in links.values():
        assert real_client.get(href).status_code in (200, 301), f"{url}: dead term link {href}"


def test_terms_box_names_the_term_in_the_pages_language(client: FlaskClient) -> None:
    french = client.get("/fr/rules/117.3a").get_data(as_text=True)
    entry = _entry(french, "priority")
    assert entry is not None and entry.groups()[:2] == ("priorité", "Priority")
    # An English text on a Japanese page: the page's language decides.
    japanese = client.get("/ja/en-2019-07-12/rules/117.3a").get_data(as_text=True)
    entry = _entry(japanese, "priority")
    assert entry is not None and entry.groups()[:2] == ("優先権", "Priority")
    # No term-base name for "active player": the English alone, as before.
    entry = _entry(japanese, "active player")
    assert entry is not None and entry.groups()[:2] == (None, "Active Player")
    english = client.get("/en/rules/117.3a").get_data(as_text=True)
    assert 'class="term-local"' not in english
    body = client.get("/fr/rules/117.3a.json").get_json()["page"]
    assert {t["key"]: t["local"] for t in body["terms"]}["priority"] == "priorité"
