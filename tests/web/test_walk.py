"""What a reader walking the pages of the built corpus noticed, pinned."""

from __future__ import annotations

from flask.testing import FlaskClient


def _main(html: str) -> str:
    return html.split("<main", 1)[1].split("</main>", 1)[0]


def test_example_page_lists_its_rules_once(real_client: FlaskClient) -> None:
    example = real_client.get("/en/examples.json").get_json()["examples"][0]
    html = _main(real_client.get(example["url"]).get_data(as_text=True))
    assert html.lower().count("rules:") == 1
    for number in example["rules"]:
        assert f">{number}</a>" in html


def test_glossary_in_another_language_says_so(real_client: FlaskClient) -> None:
    # French has no glossary of its own: the English one is shown, and the page says it.
    for url in ("/fr/glossary/", "/fr/glossary/priority"):
        html = _main(real_client.get(url).get_data(as_text=True))
        assert "Non disponible dans cette langue\u00a0: affiché en anglais." in html, url
    assert "Not available" not in real_client.get("/en/glossary/priority").get_data(as_text=True)
