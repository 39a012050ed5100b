"""Issue 28, the old-number notice: a current rule's page says what its number meant in older
editions (``kb rule 117.3b`` tells it on the command line), on /<locale>/rules/ and /r/."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("/en/rules/117.3b", "117.3b numbered another rule from"),
        ("/fr/rules/117.3b", "117.3b désignait une autre règle du"),
        ("/ja/rules/117.3b", "117.3b は"),
    ],
)
def test_current_rule_page_tells_its_numbers_other_meaning(
    full_client: FlaskClient, url: str, words: str
) -> None:
    page = full_client.get(url).get_data(as_text=True)
    notice = next(line for line in page.splitlines() if 'class="notice"' in line and words in line)
    assert "118.3b" in notice  # what that rule is numbered now
    assert "2019" in notice


def test_permalink_page_tells_it_too(full_client: FlaskClient) -> None:
    response = full_client.get(
        "/r/117.3b", headers={"Accept-Language": "en"}, follow_redirects=True
    )
    assert "117.3b numbered another rule from" in response.get_data(as_text=True)


def test_json_twin_carries_the_notice(full_client: FlaskClient) -> None:
    notices = full_client.get("/en/rules/117.3b.json").get_json()["page"]["numbering"]
    assert any(n["link"] == "118.3b" and n["url"] == "/en/rules/118.3b" for n in notices)


def test_a_pinned_edition_page_does_not(full_client: FlaskClient) -> None:
    page = full_client.get("/en/en-2019-07-12/rules/117.3b").get_data(as_text=True)
    assert "numbered another rule from" not in page


def test_a_number_with_one_meaning_has_no_notice(full_client: FlaskClient) -> None:
    page = full_client.get("/en/rules/100.1").get_data(as_text=True)
    assert "numbered another rule" not in page
