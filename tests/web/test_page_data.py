"""What a rule page reads, read faster: rules in batches, neighbours from the edition's order, the
subtree a level at a time, the history's rows only, values escaped without Markup objects. Each
test compares the fast path with the plain one it replaces."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask import url_for as flask_url_for
from flask.testing import FlaskClient
from jinja2 import Undefined, pass_context
from markupsafe import Markup, escape

from kb.build import load
from kb.knowledge.model import KnowledgeBase
from kb.store import StoredKnowledgeBase
from kb.store.reader import RuleHead
from kb.web import create_app
from kb.web.pages.rules import _subtree
from kb.web.render import esc


def _db_path(instance: Path) -> Path:
    kb = load(instance)
    assert isinstance(kb, StoredKnowledgeBase)
    return kb.path


def _sample_pairs(kb: KnowledgeBase) -> list[tuple[str, str]]:
    ed = kb.editions_of("en", full_only=True)[-1].id
    numbers = kb.ordered_numbers(ed)
    return [(ed, n) for n in numbers[:: max(1, len(numbers) // 60)]]


def test_rules_many_gives_what_rule_gives_one_by_one(full_instance: Path) -> None:
    path = _db_path(full_instance)
    batched, single = StoredKnowledgeBase(path), StoredKnowledgeBase(path)
    pairs = _sample_pairs(single)
    ed = pairs[0][0]
    pairs += [(ed, "999.9z"), ("en-1999-01-01", "117.3b"), pairs[0]]  # missing, unknown, twice
    found = batched.rules_many(pairs)
    assert set(found) == set(pairs)
    for pair in pairs:
        assert found[pair] == single.rule(*pair), pair
    assert found[(ed, "999.9z")] is None and found[("en-1999-01-01", "117.3b")] is None
    # What a batch read is kept: the next rule() answers from the cache, the same object.
    assert batched.rule(*pairs[1]) is found[pairs[1]]


def test_heads_are_what_a_link_shows_of_the_rule(full_instance: Path) -> None:
    path = _db_path(full_instance)
    batched, single = StoredKnowledgeBase(path), StoredKnowledgeBase(path)
    pairs = _sample_pairs(single)
    whole, linked, both = pairs[:3], pairs[3:9], pairs[9]
    cached = pairs[10]
    batched.rule(*cached)  # decoded before: the cached rule answers, whole
    found = batched.rules_many([*whole, both], {*linked, both, cached, (linked[0][0], "999.9z")})
    for pair in linked:
        rule, head = single.rule(*pair), found[pair]
        assert isinstance(head, RuleHead) and rule is not None, pair
        assert head == RuleHead(
            rule.edition, rule.lang, rule.number, rule.title, rule.text, rule.canonical
        )
        assert pair not in batched._rules  # a head is not kept as the rule
    for pair in [*whole, both, cached]:  # asked whole too, or decoded already: the rule
        assert found[pair] == single.rule(*pair)
    assert found[(linked[0][0], "999.9z")] is None


def test_the_rule_cache_stays_within_its_bound(full_instance: Path) -> None:
    path = _db_path(full_instance)
    small, fresh = StoredKnowledgeBase(path, cache_size=8), StoredKnowledgeBase(path)
    pairs = _sample_pairs(fresh)
    assert len(pairs) > 20
    small.rules_many(pairs[:10])
    for pair in pairs:
        assert small.rule(*pair) == fresh.rule(*pair)
        assert len(small._rules) <= 8


def test_neighbours_follow_the_numeric_order(full_instance: Path) -> None:
    kb = load(full_instance)
    ed = kb.editions_of("en", full_only=True)[-1].id
    order = kb.ordered_numbers(ed)
    for at in (0, 1, len(order) // 2, len(order) - 1):
        rule = kb.rule(ed, order[at])
        assert rule is not None
        prev, nxt = kb.neighbours(rule)
        assert (prev.number if prev else None) == (order[at - 1] if at > 0 else None)
        assert (nxt.number if nxt else None) == (order[at + 1] if at + 1 < len(order) else None)


def test_subtree_by_levels_equals_the_recursive_one(full_instance: Path) -> None:
    kb = load(full_instance)
    ed = kb.editions_of("en", full_only=True)[-1].id
    checked = 0
    for number in ("117", "117.3", "117.3b", "702", "702.19", "1"):
        rule = kb.rule(ed, number)
        if rule is None:
            continue
        whole = KnowledgeBase.subtree(kb, rule)  # the model's recursion, a rule at a time
        size = sum(len(n.text.encode()) + sum(len(x.encode()) for x in n.examples) for n in whole)
        assert _subtree(kb, rule, size) == whole
        assert _subtree(kb, rule, size - 1) is None  # over the budget: the page goes shallow
        checked += 1
    assert checked >= 3


def test_the_page_shows_the_history_rows_and_the_twin_every_entry(
    real_client: FlaskClient,
) -> None:
    twin = real_client.get("/en/rules/117.3b.json?history=all").get_json()
    history = twin["page"]["history"]
    assert history and all("entries" in h and "count" not in h for h in history)
    for h in history:
        # The rows fold the entries: each row an entry, then the run of entries it stands for.
        at = 0
        for row in h["rows"]:
            assert row["entry"] == h["entries"][at]
            at += 1 + row["unchanged"]
            if row["unchanged"]:
                assert row["until"] == h["entries"][at - 1]
        assert at == len(h["entries"])
    html = real_client.get("/en/rules/117.3b").get_data(as_text=True)
    english = next(h for h in history if h["lang"] == "en")
    if len(english["entries"]) > 1:
        assert f"{len(english['entries'])} editions" in html
    for row in english["rows"]:
        assert f'href="{row["entry"]["url"]}"' in html


def test_escape_writes_what_markupsafe_writes() -> None:
    class Html:
        def __html__(self) -> str:
            return "<b>kept</b>"

    for value in ["a < b & \"c\" 'd'", "", Markup("<i>safe</i>"), 42, 1.5, None, Html()]:
        assert esc(value) == str(escape(value))
    assert esc(Undefined()) == str(escape(Undefined()))


def test_oembed_link_is_what_url_for_builds(full_client: FlaskClient) -> None:
    html = full_client.get("/fr/glossary/attacking%20creature").get_data(as_text=True)
    found = re.search(r'type="application/json\+oembed" href="([^"]+)"', html)
    assert found is not None
    card = re.search(r'<link rel="canonical" href="([^"]+)"', html)
    assert card is not None
    app = full_client.application
    with app.test_request_context("/fr/glossary/attacking%20creature"):
        expected = "http://localhost" + flask_url_for(
            "embed.oembed", url=card.group(1), format="json"
        )
    assert found.group(1).replace("&amp;", "&") == expected


def test_cached_shared_data_follows_the_script_root(full_instance: Path) -> None:
    """Glossary terms and example summaries are kept per URL prefix: an app mounted elsewhere
    links its own pages."""
    app = create_app({"INSTANCE": full_instance, "TESTING": True, "PAGE_CACHE": False})
    client = app.test_client()
    plain = client.get("/en/rules/702.19b").get_data(as_text=True)
    body = client.get("/en/rules/702.19b", base_url="http://localhost/kb/").get_data(as_text=True)
    for part in ('href="/en/glossary/trample"', 'href="/en/examples/'):
        assert part in plain
        assert part not in body and part.replace('"/', '"/kb/') in body
    app.extensions["kb_search"].close()


@pytest.mark.parametrize("path", ["/en/rules/117.3b.json", "/ja/rules/702.19b.json"])
def test_json_twin_is_valid_and_complete(request: pytest.FixtureRequest, path: str) -> None:
    # 702.19b is only in the official editions: its case asks for them (and skips without).
    client = request.getfixturevalue("full_client" if "702.19b" in path else "real_client")
    response = client.get(path)
    assert response.status_code == 200
    body = json.loads(response.get_data(as_text=True))
    assert body["ok"] and body["page"]["rule"]["number"]


def test_templates_escape_the_values_they_write(app) -> None:
    from flask import render_template_string

    with app.test_request_context("/en/"):
        hostile = "<script>alert('x')</script>&\"'"
        assert render_template_string("<p>{{ value }}</p>", value=hostile) == (
            f"<p>{escape(hostile)}</p>"
        )
        assert render_template_string("<p>{{ value }}</p>", value=Markup("<b>")) == "<p><b></p>"


def test_template_calls_give_what_jinja_gives(app) -> None:
    # Helpers and macros, and a function that asks for the context, inside a loop too.
    @pass_context
    def seen(context, suffix: str) -> str:
        return f"{context.get('name')}{suffix}"

    source = (
        '{% macro m(x) %}[{{ x }}]{% endmacro %}{% for i in [1, 2] %}{{ m(i) }}{{ seen("!") }}'
        '{% endfor %}{{ _("Rules") }} {{ ngettext("%(num)d edition", "%(num)d editions", 2) }} '
        "{{ url_for('pages.rule', locale='fr', number='117.3b') }}"
    )
    with app.test_request_context("/en/"):
        template = app.jinja_env.from_string(source)
        assert template.render(name="<n>", seen=seen) == (
            "[1]&lt;n&gt;![2]&lt;n&gt;!Rules 2 editions /fr/rules/117.3b"
        )


def test_etag_belongs_to_its_url_even_in_one_app_context(app, client: FlaskClient) -> None:
    # g lives as long as the app context: an ETag kept there answered the next URL with the
    # first one's, and a conditional GET of another page got a 304.
    with app.app_context():
        first = client.get("/en/rules/117.3b")
        second = client.get("/en/rules/117.5")
        assert first.status_code == second.status_code == 200
        assert first.headers["ETag"] != second.headers["ETag"]
        other = client.get("/en/rules/117.5", headers={"If-None-Match": first.headers["ETag"]})
        assert other.status_code == 200
        same = client.get("/en/rules/117.5", headers={"If-None-Match": second.headers["ETag"]})
        assert same.status_code == 304
