"""A build without a card file offers no card index: neither the navigation nor the home page
links one (it would answer 404). With cards, see tests/cards/test_cards_build.py."""

from __future__ import annotations

from flask.testing import FlaskClient


def test_no_card_link_without_cards(client: FlaskClient) -> None:
    for locale in ("en", "fr", "ja"):
        rule = client.get(f"/{locale}/rules/702.9").get_data(as_text=True)
        nav = rule[rule.index('class="sections"') : rule.index("</nav>")]
        assert "/cards/" not in nav and "/rules/" in nav, locale
        home = client.get(f"/{locale}/").get_data(as_text=True)
        assert f'action="/{locale}/cards/"' not in home, locale
    assert client.get("/en/index.json").get_json()["cards"] == 0
