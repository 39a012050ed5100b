"""Cards in a build: ``kb build --cards`` (remembered, a changed file rebuilds only the cards, a bad
file left out with exit status 3 and the previous cards kept), the card tables, ``kb card``,
the card pages and their JSON twins, and search that reads cards.

One instance is built from the embedded corpus, the shared 2025-11-14 rules (skipped where
absent) and our own fixture cards (tests/fixtures/cards), once per module; the tests that change its card file run in order on a copy.
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.build import build, load
from kb.cli.main import main
from kb.store.cards import CardStore, card_slug, game_names
from kb.web import create_app
from tests.cards.conftest import CR_2025, FIXTURES

ATOMIC = FIXTURES / "atomic.json"
SCRYFALL = FIXTURES / "scryfall.json"


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded corpus and the 2025-11-14 rules with the fixture AtomicCards file."""
    if not CR_2025.is_file():
        pytest.skip(f"no shared rules text at {CR_2025}: cards link to a full English edition")
    folder = tmp_path_factory.mktemp("cards") / "instance"
    report = build(folder, [CR_2025], cards=ATOMIC)
    assert report.totals["cards"] == 5
    return folder


@pytest.fixture(scope="module")
def client(instance: Path) -> Iterator[object]:
    app = create_app({"INSTANCE": instance, "TESTING": True})
    with app.test_client() as c:
        yield c


def test_slugs() -> None:
    assert card_slug("Fire // Ice") == "fire-ice"
    assert card_slug("Æther Vial") == "aether-vial"
    assert card_slug("Krenko's Command") == "krenkos-command"


def test_game_names_read_lists_and_actions() -> None:
    markdown = (
        '# Title naming Not A Card\n```game\nAlice has: hand [Shock, "Krenko\'s Command"]; '
        "battlefield [Grizzly Bears (tapped, 1 damage)]\nAlice casts Lightning Bolt targeting Bob\n```"
    )
    assert game_names(markdown) == {"Shock", "Krenko's Command", "Grizzly Bears", "Lightning Bolt"}


def test_cards_are_stored_with_names_rulings_and_rules(instance: Path) -> None:
    kb = load(instance)
    store = CardStore.of(kb)
    assert store is not None and store.count == 5
    assert store.meta["format"] == "mtgjson-atomic"
    row = store.by_slug("test-gryphon")
    assert row is not None
    assert row.card.rulings[0].date == "2030-12-01"
    numbers = {u[0]: u[1] for u in row.uses}
    assert numbers.get("702.9") == "keyword"  # Flying
    # names in the three languages find the same card
    for name in ("Test Gryphon", "griffon d'essai", "Test Gryphn"):
        found = store.resolve(name)
        assert found and found[0][0] == row.id, name
    ja = row.card.printed_name("ja")
    assert ja and store.resolve(f"《{ja}》")[0][0] == row.id
    assert ("test-gryphon", "Test Gryphon", "keyword") in store.using("702.9")


def test_build_without_change_is_skipped(instance: Path) -> None:
    report = build(instance)  # the card file is remembered
    assert report.skipped
    remembered = json.loads((instance / "corpus.json").read_text(encoding="utf-8"))
    assert remembered["cards"] == str(ATOMIC.resolve())


def test_changed_card_file_rebuilds_only_cards_and_bad_file_keeps_them(
    instance: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "instance"
    shutil.copytree(instance, copy, symlinks=True)
    cards = tmp_path / "cards.json"
    shutil.copy(SCRYFALL, cards)
    report = build(copy, cards=cards)
    assert any("only the cards" in n for n in report.notes), report.notes
    assert "read" not in report.timings and "link" not in report.timings
    store = CardStore.of(load(copy))
    assert store is not None and store.meta["format"] == "scryfall-oracle"
    count = store.count
    # a file that is no card file: reported with file and position, exit 3, the cards kept
    cards.write_text('{"meta": {}, "data": [1, 2', encoding="utf-8")
    out = io.StringIO()
    status = main(["build", "--instance", str(copy), "--quiet"], out)
    assert status == 3
    kept = CardStore.of(load(copy))
    assert kept is not None and kept.count == count
    info = json.loads((copy / "build.json").read_text(encoding="utf-8"))
    problems = [p for p in info["problems"] if str(cards) in p]
    assert problems and "error" in problems[0]
    assert info["totals"]["rules"] > 0  # the rules are built as before


def test_bad_card_path_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["build", "--instance", str(tmp_path / "i"), "--cards", str(tmp_path / "none")])
    assert status == 1
    err = capsys.readouterr().err
    assert "no such file" in err and "Traceback" not in err


def test_kb_card(instance: Path) -> None:
    out = io.StringIO()
    assert (
        main(
            ["card", "Griffon d'essai", "--instance", str(instance), "--json", "--lang", "fr"], out
        )
        == 0
    )
    data = json.loads(out.getvalue())
    assert data["name"] == "Test Gryphon" and data["printed_name"] == "Griffon d'essai"
    assert data["faces"][0]["printed"]["name"] == "Griffon d'essai"
    assert any(g["why"] == "keyword" for g in data["rules_by_why"])
    out = io.StringIO()
    assert main(["card", "Test Gryphon", "--instance", str(instance)], out) == 0
    text = out.getvalue()
    assert "Rules this card uses" in text and "702.9 Flying" in text and "2030-12-01" in text
    out = io.StringIO()
    assert main(["card", "Zzzz Qqqq", "--instance", str(instance), "--json"], out) == 1
    assert json.loads(out.getvalue())["status"] == 404


def test_kb_card_imports_only_what_it_reads(instance: Path) -> None:
    """``kb card`` reads one indexed row: it must not load the knowledge model, the store's
    writer, search, the web app or the template engine (each costs start time, the 0.2 s budget
    of tests/bench/bench_cli_start.py)."""
    import subprocess
    import sys

    probe = (
        "import sys, io; from kb.cli.main import main; out = io.StringIO(); "
        f"status = main(['card', 'Test Gryphon', '--instance', {str(instance)!r}], out); "
        "heavy = ('kb.knowledge.model', 'kb.store.writer', 'kb.search', 'kb.web', 'flask', "
        "'whoosh', 'jinja2', 'kb.build'); "
        "print(status, 'Test Gryphon' in out.getvalue(), sorted(m for m in sys.modules "
        "if m.startswith(heavy)))"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=root, check=True
    )
    assert done.stdout.strip() == "0 True []", done.stdout + done.stderr


def test_card_pages(client: object) -> None:
    page = client.get("/fr/cards/test-gryphon")  # type: ignore[attr-defined]
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Griffon d&#39;essai" in html or "Griffon d'essai" in html
    assert 'href="/fr/rules/702.9"' in html and 'class="mana' in html and "2030-12-01" in html
    twin = client.get("/ja/cards/test-gryphon.json").get_json()  # type: ignore[attr-defined]
    assert twin["ok"] and twin["card"]["name"] == "Test Gryphon"
    assert twin["card"]["rules_by_why"][0]["rules"][0]["url"].startswith("/ja/rules/")
    moved = client.get("/en/cards/Griffon%20d'essai")  # type: ignore[attr-defined]
    assert moved.status_code == 301 and moved.headers["Location"].endswith("/en/cards/test-gryphon")
    assert client.get("/en/cards/no-such-card").status_code == 404  # type: ignore[attr-defined]
    index = client.get("/en/cards.json?q=gryphon").get_json()  # type: ignore[attr-defined]
    assert index["cards"][0]["url"] == "/en/cards/test-gryphon"


def test_card_index_is_reachable_from_the_navigation_and_home(client: object) -> None:
    """With cards, every page's navigation links the card index in the reader's language, and
    the home page offers it with a name form; the page it leads to finds the card."""
    for locale, label in (("en", "Cards"), ("fr", "Cartes"), ("ja", "カード")):
        rule = client.get(f"/{locale}/rules/702.9").get_data(as_text=True)  # type: ignore[attr-defined]
        nav = rule[rule.index('class="sections"') : rule.index("</nav>")]
        assert f'href="/{locale}/cards/">{label}</a>' in nav, locale
        home = client.get(f"/{locale}/").get_data(as_text=True)  # type: ignore[attr-defined]
        assert f'action="/{locale}/cards/"' in home and 'name="q"' in home, locale
    assert client.get("/en/index.json").get_json()["cards"] == 5  # type: ignore[attr-defined]
    found = client.get("/en/cards/?q=gryphon").get_data(as_text=True)  # type: ignore[attr-defined]
    assert 'href="/en/cards/test-gryphon"' in found


def test_search_gives_the_card_first(client: object) -> None:
    for query in ("Test Gryphon", "Griffon d'essai", "Test Griphon"):
        data = client.get("/en/search.json", query_string={"q": query}).get_json()  # type: ignore[attr-defined]
        hits = [h for g in data["groups"] for h in g["hits"]] if "groups" in data else data["hits"]
        assert hits[0]["kind"] == "card", query
        assert client.get(hits[0]["url"]).status_code == 200  # type: ignore[attr-defined]


def test_linkify_links_quoted_card_names(client: object) -> None:
    body = {
        "text": "[[Test Gryphn]] and « Griffon d'essai » but « incolore », rule 702.9",
        "lang": "fr",
    }
    data = client.post("/api/linkify", json=body).get_json()  # type: ignore[attr-defined]
    assert [c["slug"] for c in data["cards"]] == ["test-gryphon", "test-gryphon"]
    assert data["html"].count('class="card"') == 2 and "« incolore »" in data["html"]
    assert data["refs"][0]["number"] == "702.9"


def test_markdown_links_card_quotes() -> None:
    import markdown

    html = markdown.markdown(
        "[[Sphere of Resistance]] and 《抵抗の宝球》, rule 601.2f, « incolore »",
        extensions=["kb.markdown"],
        extension_configs={"kb.markdown": {"base_url": "https://kb.example"}},
    )
    assert 'href="https://kb.example/en/cards/Sphere%20of%20Resistance"' in html
    assert ">《抵抗の宝球》</a>" in html and "« incolore »" in html
    assert 'href="https://kb.example/en/rules/601.2f"' in html


def test_card_names_in_rules_link_to_cards(instance: Path, tmp_path: Path) -> None:
    copy = tmp_path / "instance"
    shutil.copytree(instance, copy, symlinks=True)
    data = json.loads(ATOMIC.read_text(encoding="utf-8"))
    orchard = {
        "name": "Exotic Orchard",
        "layout": "normal",
        "type": "Land",
        "types": ["Land"],
        "text": "{T}: Add one mana of any color that a land an opponent controls could produce.",
        "manaValue": 0.0,
    }
    data["data"]["Exotic Orchard"] = [orchard]
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps(data), encoding="utf-8")
    build(copy, cards=cards)
    app = create_app({"INSTANCE": copy, "TESTING": True})
    with app.test_client() as c:
        html = c.get("/en/rules/106.7").get_data(as_text=True)
        assert 'href="/en/cards/exotic-orchard" data-term="card:exotic-orchard"' in html
        assert c.get("/en/cards/exotic-orchard.json").get_json()["card"]["name"] == "Exotic Orchard"
