"""Glossary terms are linked inline in every language, with their definition for the hover."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

TERM_LINK = re.compile(r'<a class="term" href="([^"]+)" data-term="([^"]+)">')


@pytest.mark.parametrize(
    ("url", "key"),
    [("/fr/rules/117.3b", "priority"), ("/ja/rules/116.2a", "special action")],
)
def test_translated_rule_links_terms_with_the_english_definition(
    real_client: FlaskClient, url: str, key: str
) -> None:
    html = real_client.get(url).get_data(as_text=True)
    article = html.split('<article class="main-rule"', 1)[1].split("</article>", 1)[0]
    links = dict((k, href) for href, k in TERM_LINK.findall(article))
    assert key in links, f"no inline link to the glossary term {key!r} on {url}"
    # The hover reads the definition from the page's list; with no glossary of its own the
    # language shows the English entry, marked as English.
    entry = re.search(
        rf'<dt data-term="{re.escape(key)}"><a href="[^"]+" lang="en">[^<]+</a></dt>\s*'
        r'<dd lang="en">([^<]+)</dd>',
        html,
    )
    assert entry is not None and len(entry.group(1)) > 20
    for href in links.values():
        assert real_client.get(href).status_code in (200, 301), f"{url}: dead term link {href}"
