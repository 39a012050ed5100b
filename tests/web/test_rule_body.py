"""A rule page written by :mod:`kb.web.pages.rule_body` is the page ``pages/rule.html`` writes:
the same bytes for many rules (subtrees, examples, history, translations, references, terms,
old editions and numbers, every locale)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask

from kb.build import load
from kb.knowledge.model import KnowledgeBase, Rule
from kb.web import create_app
from kb.web.pages import rules

LOCALES = ("en", "fr", "ja")


def _pages(app: Flask, urls: list[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each URL's page written by Python and by the template (the same when all is well);
    the URLs whose two pages differ, with the first difference."""
    client = app.test_client()
    differ = []
    for url in urls:
        written = client.get(url)
        with monkeypatch.context() as patch:
            patch.setattr(rules, "rule_body", SimpleNamespace(blocks=None))
            templated = client.get(url)
        assert written.status_code == templated.status_code, url
        a, b = written.get_data(as_text=True), templated.get_data(as_text=True)
        if a != b:
            at = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
            differ.append(f"{url}: {a[at - 80 : at + 80]!r} != {b[at - 80 : at + 80]!r}")
        assert dict(written.headers) == dict(templated.headers), url
    return differ


@pytest.fixture(scope="module")
def instance_app(web_instance: Path) -> Iterator[Flask]:
    app = create_app({"INSTANCE": web_instance, "TESTING": True, "PAGE_CACHE": False})
    yield app
    app.extensions["kb_search"].close()


def _sample_urls(kb: KnowledgeBase, per_edition: int) -> list[str]:
    rng = random.Random(11)
    urls = []
    for ed in kb.editions.values():
        numbers = list(kb.ordered_numbers(ed.id))
        picked = numbers[:4] + rng.sample(numbers, min(len(numbers), per_edition))
        urls += [f"/{rng.choice(LOCALES)}/{ed.id}/rules/{n}" for n in picked]
    current = sorted(c for c in kb.concordance if ":" not in c)
    for canonical in [*rng.sample(current, min(len(current), 60)), "117.3b", "702.19b", "117"]:
        urls += [f"/{loc}/rules/{canonical}" for loc in LOCALES]
    return list(dict.fromkeys(urls))


def test_written_pages_equal_the_template_on_a_build(
    instance_app: Flask, web_instance: Path, monkeypatch: pytest.MonkeyPatch, cr_en_dir: Path
) -> None:
    """Needs the official editions (``cr_en_dir`` skips without them): the embedded corpus has no
    rule page with every part this test looks for."""
    urls = _sample_urls(load(web_instance), 25)
    assert _pages(instance_app, urls, monkeypatch) == []
    # The sample holds each part of a rule page (else the equality says little).
    client = instance_app.test_client()
    seen = "".join(client.get(u).get_data(as_text=True) for u in urls)
    for part in (
        'class="crumbs"',
        'class="rule depth-',
        'class="example"',
        'class="more"',
        'rel="prev"',
        'rel="next"',
        'class="translation"',
        'class="term-local"',
        'class="previews"',
        'aria-labelledby="h-back"',
        'class="history-table"',
        'class="old-number"',
        'class="unchanged"',
        'class="diff"',
        'class="example-run"',
        'class="notice"',
        'class="asks"',
    ):
        assert part in seen, part


def test_written_pages_equal_the_template_on_the_hand_made_base(
    tmp_path: Path, kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Values that HTML must escape, in every place a rule's own words appear.
    hostile = '<b>"Tom & Jerry\'s"</b>'
    table = kb.rules["en-2019-07-12"]
    table["117"].title = hostile
    table["117.3a"].text = f"{hostile} {table['117.3a'].text}"
    table["117.5"].examples = [f"Example: {hostile}"]
    table["117.5"].example_refs = [[]]
    table["117.6"] = Rule(
        edition="en-2019-07-12",
        lang="en",
        number="117.6",
        kind="subrule",
        text=hostile,
        title=hostile,
        parent="117",
        canonical="117.6",
    )
    table["117"].children.append("117.6")
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True, "PAGE_CACHE": False})
    urls = [
        f"/{loc}/{path}"
        for loc in LOCALES
        for path in (
            "rules/117",
            "rules/117.3",
            "rules/117.3a",
            "rules/117.3b",
            "rules/117.5",
            "rules/117.6",
            "rules/116",
            "en-2019-06-14/rules/116",
            "en-2019-06-14/rules/116.3b",
            "fr-2019-06-14/rules/116.3a",
            "ja-2023-11-17/rules/117",
            "ja-2023-11-17/rules/117.3",
        )
    ]
    try:
        assert _pages(app, urls, monkeypatch) == []
        page = app.test_client().get("/en/rules/117").get_data(as_text=True)
        assert hostile not in page
        assert "&lt;b&gt;&#34;Tom &amp; Jerry&#39;s&#34;&lt;/b&gt;" in page
    finally:
        app.extensions["kb_search"].close()


def test_the_layout_is_filled_in_as_the_template_writes_it(app: Flask) -> None:
    # The layout kept as a format string gives what the template gives, values escaped alike;
    # a page whose structure differs (alternates not the three locales) goes to the template.
    from flask import render_template
    from markupsafe import Markup

    from kb.web import layout
    from kb.web.pages.base import WRITTEN

    title, content = Markup("117.3b <i>T</i>"), Markup("<p>{0} {content} %s</p>")
    full = {loc: f"/{loc}/rules/117.3b?x=<'&\">" for loc in LOCALES}
    for alternates in (full, {"en": "/en/", "fr": "/fr/"}):
        with app.test_request_context("/fr/rules/117.3b"):
            app.preprocess_request()
            written = layout.page(title, content, alternates, "/fr/rules/117.3b.json?a&b")
            expected = render_template(
                WRITTEN,
                alternates=alternates,
                json_url="/fr/rules/117.3b.json?a&b",
                title=title,
                content=content,
            )
            assert written == expected
            assert "{0} {content} %s" in written
    assert any(v is not None for v in layout._LAYOUTS.values())


def test_written_pinned_pages_of_an_export_equal_the_template(
    web_instance: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An export's version pages link to the current rule's history and examples
    app = create_app(
        {"INSTANCE": web_instance, "TESTING": True, "PAGE_CACHE": False, "EXPORT": True}
    )
    try:
        kb = load(web_instance)
        urls = [u for u in _sample_urls(kb, 25) if u.count("/") == 4]
        assert _pages(app, urls, monkeypatch) == []
        client = app.test_client()
        linked = 0
        for url in urls:
            page = client.get(url).get_data(as_text=True)
            if '#history">' in page:  # a rule of today: its history is on its current page
                linked += 1
                assert 'class="history-table"' not in page and 'class="example-run"' not in page
        assert linked > len(urls) / 2
    finally:
        app.extensions["kb_search"].close()
