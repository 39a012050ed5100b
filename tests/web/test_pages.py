"""Every page and its JSON twin, in all three locales, over the hand-made knowledge base."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from kb.knowledge.model import Edition, KnowledgeBase
from kb.knowledge.serialise import edition_json, rule_json
from kb.web import create_app

LOCALES = ("en", "fr", "ja")
PAGES = [
    "/{loc}/",
    "/{loc}/rules/",
    "/{loc}/rules/117",
    "/{loc}/rules/117.3a",
    "/{loc}/en-2019-06-14/rules/116.3b",
    "/{loc}/search",
    "/{loc}/glossary/",
    "/{loc}/glossary/priority",
    "/{loc}/editions/",
    "/{loc}/editions/en-2019-06-14..en-2019-07-12",
    "/{loc}/examples/",
    "/{loc}/examples/shock-response",
]
JSON_TWINS = {
    "/{loc}/": "/{loc}/index.json",
    "/{loc}/rules/": "/{loc}/rules.json",
    "/{loc}/glossary/": "/{loc}/glossary.json",
    "/{loc}/editions/": "/{loc}/editions.json",
    "/{loc}/examples/": "/{loc}/examples.json",
}


def twin(url: str) -> str:
    """The JSON twin of a page URL."""
    return JSON_TWINS.get(url, url + ".json")


@pytest.mark.parametrize("loc", LOCALES)
@pytest.mark.parametrize("url", PAGES)
def test_page_and_its_json_twin(client: FlaskClient, url: str, loc: str) -> None:
    page = client.get(url.format(loc=loc))
    assert page.status_code == 200, page.get_data(as_text=True)[:500]
    assert page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert f'<html lang="{loc}">' in html
    json_url = twin(url).format(loc=loc)
    assert page.headers["Link"] == f'<{json_url}>; rel="alternate"; type="application/json"'
    data = client.get(json_url)
    assert data.status_code == 200
    assert data.mimetype == "application/json"
    body = data.get_json()
    assert body["ok"] is True and body["locale"] == loc
    assert data.headers["Link"].startswith(f"<{url.format(loc=loc)}>; rel=")
    assert data.headers["Access-Control-Allow-Origin"] == "*"


def test_home_lists_newest_editions_with_localised_dates(client: FlaskClient) -> None:
    ja = client.get("/ja/").get_data(as_text=True)
    assert "2019年7月12日" in ja
    fr = client.get("/fr/").get_data(as_text=True)
    assert "12 juillet 2019" in fr
    body = client.get("/en/index.json").get_json()
    assert [e["id"] for e in body["newest"]] == ["en-2019-07-12", "fr-2019-06-14", "ja-2023-11-17"]
    sections = {s["number"]: s for s in body["toc"]}
    assert [r["number"] for r in sections["1"]["rules"]] == ["116", "117"]
    assert sections["5"]["title"] == "Turn Structure"


def test_toc_uses_translated_titles(client: FlaskClient) -> None:
    body = client.get("/fr/index.json").get_json()
    rule117 = next(r for s in body["toc"] for r in s["rules"] if r["number"] == "117")
    assert rule117 == {
        "number": "117",
        "title": "Timing et priorité",
        "lang": "fr",
        "url": "/fr/rules/117",
    }
    html = client.get("/fr/").get_data(as_text=True)
    assert '<span lang="en">Special Actions</span>' in html


def test_rule_page_shows_subtree_refs_terms_and_anchors(client: FlaskClient) -> None:
    html = client.get("/en/rules/117").get_data(as_text=True)
    for anchor in ("R1173", "R1173a", "R1173b", "R1175"):
        assert f'id="{anchor}"' in html
    assert 'id="117.3a"' not in html and not re.search(r'id="[^"]*\.', html)
    assert '<a class="ref" href="/en/rules/117.3b" data-rule="117.3b">rule 117.3b</a>' in html
    assert 'class="term" href="/en/glossary/active%20player"' in html
    # the previews list that hover popovers read, and the glossary definitions
    assert 'data-preview="/en/rules/117.3b"' in html
    assert "The player whose turn it is." in html
    assert 'href="/r/117"' in html


def test_rule_json_has_the_cli_shape_and_the_page_under_page(
    client: FlaskClient, kb: KnowledgeBase
) -> None:
    body = client.get("/en/rules/117.3a.json?history=all").get_json()
    assert body.pop("ok") is True and body.pop("locale") == "en"
    page = body.pop("page")
    cli = json.loads(json.dumps(rule_json(kb, kb.rule("en-2019-07-12", "117.3a"))))
    assert body == cli
    assert body["number"] == "117.3a" and body["edition"] == "en-2019-07-12"
    assert body["translations"]["fr"]["number"] == "116.3a"
    assert page["rule"]["anchor"] == "R1173a" and page["edition"]["id"] == "en-2019-07-12"


def test_edition_json_has_the_cli_shape_and_the_page_under_page(
    client: FlaskClient, kb: KnowledgeBase
) -> None:
    body = client.get("/fr/editions.json").get_json()
    rows = {e["id"]: e for g in body["languages"] for e in g["editions"]}
    ja = rows.pop("ja-2023-11-17")
    page = ja.pop("page")
    assert ja == json.loads(json.dumps(edition_json(kb.editions["ja-2023-11-17"])))
    assert page["label"] == "Édition du 17 novembre 2023" and page["language"] == "日本語"
    assert page["lag"]["follows"] == "en-2019-07-12"


def test_rule_json_carries_everything_around_the_rule(client: FlaskClient) -> None:
    body = client.get("/en/rules/117.3a.json?history=all").get_json()["page"]
    assert body["rule"]["number"] == "117.3a" and body["rule"]["anchor"] == "R1173a"
    assert [c["number"] for c in body["breadcrumbs"]] == ["1", "117", "117.3"]
    assert body["prev"]["number"] == "117.3" and body["next"]["number"] == "117.3b"
    langs = {t["lang"]: t for t in body["translations"]}
    assert langs["fr"]["number"] == "116.3a" and langs["fr"]["edition"]["id"] == "fr-2019-06-14"
    assert langs["fr"]["lag"]["editions"] == 1 and langs["fr"]["lag"]["days"] == 28
    assert langs["ja"]["lag"]["editions"] == 0
    english = next(h for h in body["history"] if h["lang"] == "en")["entries"]
    assert [(e["number"], e["renumbered_from"]) for e in english] == [
        ("116.3a", None),
        ("117.3a", "116.3a"),
    ]
    assert body["old_numbers"][0]["number"] == "116.3a"
    assert body["old_numbers"][0]["until"] == "2019-06-14"


def test_history_has_word_diff_and_old_numbers(client: FlaskClient) -> None:
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "<del>receives</del><ins>gets</ins>" in html
    assert '<span class="renumbered">116.3b → 117.3b</span>' in html


def test_rule_in_the_locale_language_with_other_languages_side_by_side(
    client: FlaskClient,
) -> None:
    fr = client.get("/fr/rules/117.3a").get_data(as_text=True)
    assert '<article class="main-rule" lang="fr" id="R1163a">' in fr
    assert "Numérotée 116.3a dans ce texte\u202f; 117.3a dans les règles actuelles." in fr
    assert '<article class="translation" lang="en">' in fr
    assert '<article class="translation" lang="ja">' in fr
    assert "1 édition anglaise de retard" in fr


def test_rule_missing_in_locale_falls_back_to_english(client: FlaskClient) -> None:
    body = client.get("/ja/rules/117.5.json").get_json()
    assert body["page"]["fallback"] is True and body["lang"] == "en"
    html = client.get("/ja/rules/117.5").get_data(as_text=True)
    assert '<article class="main-rule" lang="en"' in html
    assert "この言語では提供されていません" in html


def test_switcher_keeps_the_same_rule(client: FlaskClient) -> None:
    html = client.get("/fr/rules/117.3a").get_data(as_text=True)
    assert '<a href="/ja/rules/117.3a" hreflang="ja" lang="ja">日本語</a>' in html
    assert '<a href="/en/rules/117.3a" hreflang="en" lang="en">English</a>' in html
    pinned = client.get("/ja/en-2019-06-14/rules/116.3b").get_data(as_text=True)
    assert 'href="/fr/en-2019-06-14/rules/116.3b"' in pinned


def test_pinned_edition_page_links_to_the_current_rule(client: FlaskClient) -> None:
    body = client.get("/en/en-2019-06-14/rules/116.3b.json").get_json()["page"]
    assert body["pinned"] is True and body["current_url"] == "/en/rules/117.3b"
    assert body["rule"]["examples"][0]["html"].count('href="/en/en-2019-06-14/rules/116.3a"') == 1


def test_examples_cite_rules_and_show_their_trace(client: FlaskClient) -> None:
    rule = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "Shock in response" in rule and 'data-step="4"' in rule
    page = client.get("/en/examples/shock-response").get_data(as_text=True)
    assert "<strong>Shock</strong>" in page
    assert '<a class="ref" data-rule="117.3b" href="/en/rules/117.3b"' in page
    assert "<script>" not in page.split("<main", 1)[1].split("</main>")[0]
    assert "javascript:" not in page


def test_changes_page_groups_moves_edits_creations(client: FlaskClient) -> None:
    body = client.get("/en/editions/en-2019-06-14..en-2019-07-12.json").get_json()
    assert body["counts"] == {"moved": 2, "edited": 1, "created": 1, "deleted": 0}
    assert body["changes"]["edited"][0]["diff"].startswith("The player who cast a spell <del>")
    html = client.get("/fr/editions/").get_data(as_text=True)
    assert 'href="/fr/editions/en-2019-06-14..en-2019-07-12"' in html


def test_glossary_entry_and_equivalents(client: FlaskClient) -> None:
    body = client.get("/fr/glossary/priority.json").get_json()
    assert body["entry"]["term"] == "Priority"
    assert {"lang": "fr", "names": ["priorité"]} in body["equivalents"]
    assert 'href="/fr/rules/117"' in body["entry"]["html"]


def test_rule_page_weighs_under_60_kb(client: FlaskClient) -> None:
    for loc in LOCALES:
        assert len(client.get(f"/{loc}/rules/117").data) < 60_000


def test_lag_counts_full_english_editions_and_days_from_the_followed_text(
    client: FlaskClient,
) -> None:
    # The Japanese text translates the newest English edition; the French one the older edition.
    body = client.get("/en/editions.json").get_json()
    lags = {e["id"]: e["page"]["lag"] for g in body["languages"] for e in g["editions"]}
    assert lags["ja-2023-11-17"]["follows"] == "en-2019-07-12"
    assert (lags["ja-2023-11-17"]["editions"], lags["ja-2023-11-17"]["days"]) == (0, 0)
    assert lags["fr-2019-06-14"]["follows"] == "en-2019-06-14"
    assert (lags["fr-2019-06-14"]["editions"], lags["fr-2019-06-14"]["days"]) == (1, 28)
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "1 English edition behind (28 days)." in html
    assert "Up to date with the English rules." in html  # the Japanese text


def test_lag_of_an_undated_text_is_not_up_to_date(kb: KnowledgeBase, tmp_path: Path) -> None:
    # A newer English partial edition must not count, and an undated text is never "up to date".
    kb.editions["en-2020-01-01"] = Edition(
        "en-2020-01-01", "en", "2020-01-01", "partial", "en-2020-01-01", ["wiki.txt"]
    )
    fr = kb.editions["fr-2019-06-14"]
    fr.date, fr.translates, fr.numbering = None, None, "2010-07-01..2019-06-30"
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True, "PAGE_CACHE": False})
    client = app.test_client()
    lag = client.get("/en/rules/117.3b.json").get_json()
    french = next(t for t in lag["page"]["translations"] if t["lang"] == "fr")["lag"]
    assert french == {
        "follows": "fr-2019-06-14",
        "follows_date": None,
        "numbering": "2010-07-01..2019-06-30",
        "editions": 1,
        "days": None,
        "at_least": True,
    }
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "At least 1 English edition behind." in html
    fr.numbering = None
    html = client.get("/en/rules/117.3b").get_data(as_text=True)
    assert "How far behind the English rules is unknown." in html
    assert "Up to date" not in html.split('id="h-trans"')[1].split('lang="ja"')[0]
    app.extensions["kb_search"].close()
