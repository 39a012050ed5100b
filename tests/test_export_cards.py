"""``kb export`` of a build with cards: a page per card in each language, its JSON twin once
(the other languages' twins by a pattern), and a card index that lists every card and says that
finding a card by a typed name needs the server."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.export.pages import Site
from kb.export.redirects import StaticHost
from kb.export.runner import export

ATOMIC = Path(__file__).resolve().parent / "fixtures" / "cards" / "atomic.json"


@pytest.fixture(scope="module")
def with_cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kb.build import build

    instance = tmp_path_factory.mktemp("cards") / "instance"
    build(instance, cards=ATOMIC)
    return instance


@pytest.fixture(scope="module")
def exported(with_cards: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export-cards") / "site"
    export(with_cards, out, search=False)
    return out


def test_every_card_has_a_page_in_each_language_and_one_json(
    exported: Path, with_cards: Path
) -> None:
    site = Site(with_cards)
    host = StaticHost(exported)
    slugs = sorted(p.name for p in (exported / "en" / "cards").iterdir() if p.is_dir())
    assert len(slugs) == 5 and "spark-frost" in slugs
    for slug in slugs:
        for loc in ("en", "fr", "ja"):
            page = exported / loc / "cards" / slug / "index.html"
            assert page.read_bytes() == site.get(f"/{loc}/cards/{slug}").body
            assert host.final(f"/{loc}/cards/{slug}.json") == (200, f"/en/cards/{slug}.json")
        assert (exported / "en" / "cards" / f"{slug}.json").read_bytes() == (
            site.get(f"/en/cards/{slug}.json").body
        )
        assert not (exported / "fr" / "cards" / f"{slug}.json").exists()


def test_the_card_index_lists_every_card_and_says_search_needs_the_server(
    exported: Path,
) -> None:
    for loc, word in (("en", "static copy"), ("fr", "copie statique"), ("ja", "静的コピー")):
        index = (exported / loc / "cards" / "index.html").read_text(encoding="utf-8")
        assert word in index and "kb serve" in index
        listed = index.split('<ul class="cards export-cards">', 1)[1].split("</ul>", 1)[0]
        assert listed.count(f'<li><a href="/{loc}/cards/') == 5
        assert f'href="/{loc}/cards/spark-frost"' in index
