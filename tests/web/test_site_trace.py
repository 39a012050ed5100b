"""Issue 28.6: an example's engine trace on a French or Japanese page says its fixed phrases in
the page's language (kb.web.pages.trace_text); what no phrase matches stays English, marked so."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from kb.web.pages.trace_text import local_step


@pytest.mark.parametrize(
    ("text", "locale", "expected"),
    [
        ("Bob passes", "fr", ("Bob passe", "fr")),
        (
            "Alice receives priority (after a resolution)",
            "ja",
            ("Aliceが優先権を得る（解決の後）", "ja"),
        ),
        ("Alice casts Grizzly Bears", "fr", ("Alice lance Grizzly Bears", "fr")),
        ("Alice casts Shock targeting Bob", "fr", ("Alice casts Shock targeting Bob", "en")),
        ("Bob passes", "en", ("Bob passes", "en")),
    ],
)
def test_fixed_phrases_are_translated(text: str, locale: str, expected: tuple[str, str]) -> None:
    assert local_step(text, locale) == expected


def test_the_french_example_page_speaks_french(real_client: FlaskClient) -> None:
    page = real_client.get("/fr/examples/117-2a-triggers-wait").get_data(as_text=True)
    assert 'lang="fr">Bob passe' in page
    assert 'lang="en">Alice taps Forest' in page  # no phrase: English, marked
    rule = real_client.get("/ja/rules/117.2a").get_data(as_text=True)
    assert "がパスする" in rule
