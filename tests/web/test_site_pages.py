"""Issue 28.2, 28.4 and the contents' numbers: every search hit leads to a page that shows it
(commentary and tournament rules have pages), an old edition can be read whole (its contents and
all its rules on one page), and a table of contents prints each number once."""

from __future__ import annotations

import html
import re

import pytest
from flask.testing import FlaskClient

from kb.base.paths import PACKAGE_DIR

_TAG = re.compile(r"<[^>]+>")


def _visible(page: str) -> str:
    """A page's text as a reader sees it (tags dropped, entities read, spaces collapsed)."""
    return " ".join(html.unescape(_TAG.sub(" ", page)).split())


def _shows(client: FlaskClient, url: str, snippet: str) -> None:
    response = client.get(url.split("#")[0])
    assert response.status_code == 200, url
    # Compared without spaces: a tag may stand between two words or inside one.
    page = "".join(html.unescape(_TAG.sub("", response.get_data(as_text=True))).split())
    words = html.unescape(_TAG.sub("", snippet)).replace("…", "\n")
    chunk = max(re.split(r"\n|(?<=[.。])\s", words), key=len)[:40]
    assert "".join(chunk.split()) in page, (url, chunk)
    anchor = url.partition("#")[2]
    if anchor:
        assert f'id="{anchor}"' in response.get_data(as_text=True), url


@pytest.mark.parametrize(
    ("locale", "query", "kind"),
    [
        ("fr", "priorité", "commentary"),
        ("ja", "優先権", "commentary"),
        ("fr", "raccourci", "tournament"),
        ("en", "priority", "glossary"),
        ("en", "priority", "example"),
        ("en", "priority", "rules"),
        ("fr", "priorité", "rules"),
    ],
)
def test_every_hit_kind_leads_to_a_page_that_shows_it(
    real_client: FlaskClient, locale: str, query: str, kind: str
) -> None:
    found = real_client.get(f"/{locale}/search.json", query_string={"q": query, "kind": kind})
    hits = [h for g in found.get_json()["groups"] for h in g["hits"]]
    assert hits, (query, kind)
    for hit in hits[:6]:
        assert hit["url"], hit
        if kind in ("commentary", "tournament"):
            _shows(real_client, hit["url"], hit["snippet"])
        else:
            assert (
                real_client.get(hit["url"].split("#")[0], follow_redirects=True).status_code == 200
            )


def test_the_japanese_passing_commentary_has_its_page(real_client: FlaskClient) -> None:
    found = real_client.get("/ja/search.json", query_string={"q": "両方のプレイヤーがパスしたら"})
    hits = [h for g in found.get_json()["groups"] for h in g["hits"] if h["kind"] == "commentary"]
    assert hits
    assert hits[0]["url"].startswith("/ja/commentary/")
    _shows(real_client, hits[0]["url"], hits[0]["snippet"])


def test_tournament_hits_have_their_section_once(real_client: FlaskClient) -> None:
    found = real_client.get(
        "/fr/search.json", query_string={"q": "raccourci", "kind": "tournament"}
    )
    groups = found.get_json()["groups"]
    # One group per tournament-rules section (issue 26: its items do not crowd out rules).
    assert groups and len({(g["title"], g["number"]) for g in groups}) == len(groups)
    for group in groups:
        assert group["title"] == "Raccourcis de tournoi"
        assert group["number"] == "4.2"
    page = real_client.get("/fr/search", query_string={"q": "raccourci"}).get_data(as_text=True)
    assert "4.2 MTR 4.2" not in _visible(page)


def test_tournament_page_has_a_heading_per_section_and_an_anchor_per_item(
    real_client: FlaskClient,
) -> None:
    index = real_client.get("/en/tournament.json").get_json()["texts"]
    assert index and all(real_client.get(t["url"]).status_code == 200 for t in index)
    page = real_client.get("/fr/tournament/fr-mtr-4.2-raccourcis").get_data(as_text=True)
    assert 'id="s-4.2"' in page and 'id="fr-4.2-11"' in page
    assert real_client.get("/fr/tournament/nothing").status_code == 404
    assert real_client.get("/fr/commentary/nothing.json").get_json()["ok"] is False


def test_an_examples_mtr_citation_links_to_the_tournament_rules(real_client: FlaskClient) -> None:
    examples = real_client.get("/en/examples.json").get_json()["examples"]
    cited = [link for ex in examples for link in ex["rule_links"] if link["number"] == "MTR 4.2"]
    assert cited and all(link["url"].endswith("#s-4.2") for link in cited)
    assert real_client.get(cited[0]["url"].split("#")[0]).status_code == 200


# ---- an old edition read whole ----------------------------------------------------------------
def test_rules_index_with_an_edition_leads_to_that_editions_contents(
    full_client: FlaskClient,
) -> None:
    response = full_client.get("/en/rules/?edition=2019-06-14")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/en/editions/en-2019-06-14/rules/")
    page = full_client.get("/en/editions/en-2019-06-14/rules/").get_data(as_text=True)
    assert 'href="/en/en-2019-06-14/rules/116"' in page  # Timing and Priority was 116 then
    assert "/rules/all" in page
    assert full_client.get("/en/editions/1999-01-01/rules/").status_code == 404


@pytest.mark.parametrize("locale", ["en", "fr", "ja"])
def test_all_the_rules_of_an_old_edition_on_one_page(full_client: FlaskClient, locale: str) -> None:
    response = full_client.get(f"/{locale}/editions/en-2019-06-14/rules/all")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert '<p id="R1163b"' in page  # an anchor per rule
    assert f'href="/{locale}/en-2019-06-14/rules/116.3b">116.3b</a> The active player' in page
    rules = full_client.get(f"/{locale}/editions/en-2019-06-14/rules/all.json").get_json()["rules"]
    numbers = [r["number"] for r in rules]
    assert len(numbers) > 2000 and "116.3b" in numbers and "117.3b" in numbers
    # every rule page of the edition is reachable from it, and answers
    assert all(r["url"] == f"/{locale}/en-2019-06-14/rules/{r['number']}" for r in rules)
    assert full_client.get(rules[-1]["url"]).status_code == 200


def test_the_editions_page_links_each_editions_contents(full_client: FlaskClient) -> None:
    page = full_client.get("/fr/editions/").get_data(as_text=True)
    assert 'href="/fr/editions/en-2019-06-14/rules/"' in page


def test_contents_print_each_number_once() -> None:
    """The contents' numbers are the rules' own (.num): the list draws no second one."""
    css = (PACKAGE_DIR / "web" / "static" / "style.css").read_text(encoding="utf-8")
    assert re.search(r"\.toc, \.toc ol \{ list-style: none; \}", css)


@pytest.fixture(scope="module")
def mtr_client(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The embedded corpus plus the English MTR's section 4.2 (../shared), when present."""
    from kb.build import build
    from kb.web import create_app

    from ..conftest import MTR_EN_DIR

    section = MTR_EN_DIR / "mtr-en-2025-11-10-section-4.2.txt"
    if not section.is_file():
        pytest.skip(f"{section} not found")
    instance = tmp_path_factory.mktemp("mtr") / "instance"
    build(instance, [section], run_examples_too=False)
    app = create_app({"INSTANCE": instance, "TESTING": True})
    yield app.test_client()
    app.extensions["kb_search"].close()


def test_the_english_mtr_has_its_page_and_every_hit_its_anchor(mtr_client) -> None:  # type: ignore[no-untyped-def]
    texts = {t["lang"]: t for t in mtr_client.get("/en/tournament.json").get_json()["texts"]}
    assert set(texts) == {"en", "fr"}
    found = mtr_client.get(
        "/en/search.json", query_string={"q": "tournament shortcut", "kind": "tournament"}
    ).get_json()
    hits = [h for g in found["groups"] for h in g["hits"] if h["lang"] == "en"]
    assert hits  # one hit per section (issue 26), linked to its anchor on the text's page
    for hit in hits:
        assert hit["title"] == "Tournament Shortcuts" and hit["number"] == "4.2"
        assert hit["url"].startswith(texts["en"]["url"] + "#")
        _shows(mtr_client, hit["url"], hit["snippet"])
