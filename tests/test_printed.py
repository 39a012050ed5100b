"""Numbers as printed: a misprinted number names the rule that printed it, a number printed twice
says so on both rules, and an old number that named two rules over time says so (kb rule)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.knowledge.lookup import nearest_rules
from kb.knowledge.printed import other_meanings, printed_as_in, printed_in, printed_rule

from .conftest import SHARED_RAW

#: The editions that printed 702.30d twice (2009-09-04) and 505.54 for 505.5 (2010-06-18), the
#: two meanings of 116.3b (paying life to 2010-06-18, priority from 2010-10-01), and a 2003
#: edition whose section 1 has no lettered subrule.
EDITIONS = [
    ("cr-en-archive", "2009-07-11"),
    ("cr-en-archive", "2009-09-04"),
    ("cr-en-archive", "2010-06-18"),
    ("cr-en-archive", "2010-10-01"),
    ("cr-en-pre-m10", "2003-03-15"),
]


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An instance of the five editions (symlinks to the shared texts, never copies)."""
    from kb.build import build

    paths = [SHARED_RAW / folder / f"MagicCompRules-{day}.txt" for folder, day in EDITIONS]
    if not all(p.is_file() for p in paths):
        pytest.skip(f"official CR texts not found under {SHARED_RAW}")
    corpus = tmp_path_factory.mktemp("printed-corpus")
    for path in paths:
        (corpus / path.name).symlink_to(path)
    out = tmp_path_factory.mktemp("printed") / "instance"
    build(out, [corpus])
    return out


def rule(instance: Path, *argv: str) -> str:
    out = io.StringIO()
    assert main(["rule", *argv, "--instance", str(instance)], out=out) == 0
    return out.getvalue()


def test_a_number_printed_twice_is_shown_as_printed(instance: Path) -> None:
    second = rule(instance, "702.30e", "--edition", "2009-09-04")
    assert second.startswith("702.30e (printed 702.30d)  [en 2009-09-04]\n")
    assert "the second rule with that number" in second
    assert "2009-09-04  702.30e  edited (printed as 702.30d)" in second  # its history line
    first = rule(instance, "702.30d", "--edition", "2009-09-04")
    assert first.startswith("702.30d  [en 2009-09-04]\n")
    assert "2009-09-04 prints 702.30d for another rule too: kept as 702.30e" in first


@pytest.mark.parametrize(
    ("printed", "edition", "kept"),
    [("505.54", "2010-06-18", "505.5"), ("505.54", None, "505.5")],
)
def test_a_misprinted_number_names_the_rule_that_printed_it(
    instance: Path, printed: str, edition: str | None, kept: str
) -> None:
    text = rule(instance, printed, *(["--edition", edition] if edition else []))
    assert text.startswith(f"{kept} (printed {printed})  [en 2010-06-18]\n")
    assert f"Printed as {printed} in 2010-06-18 (a misprint); kept as {kept}." in text


def test_printed_lookups(instance: Path) -> None:
    from kb.build import load

    kb = load(instance)
    assert printed_in(kb, "en-2009-09-04") == {"702.30d": ["702.30e"]}
    assert printed_in(kb, "en-2010-10-01") == {}
    assert printed_as_in(kb, "en-2010-06-18", "505.5") == "505.54"
    assert printed_as_in(kb, "en-2010-06-18", "505.4") is None
    found = printed_rule(kb, "en", "505.54")
    assert found is not None and (found.edition, found.number) == ("en-2010-06-18", "505.5")
    assert printed_rule(kb, "en", "505.54", "en-2009-07-11") is None
    assert printed_rule(kb, "en", "505.99") is None


def test_a_number_with_two_meanings_names_the_other(instance: Path) -> None:
    text = rule(instance, "116.3b")
    assert text.startswith("116.3b  [en 2010-10-01]\n")  # the newest meaning still wins
    assert "116.3b named another rule from 2009-07-11 to 2010-06-18 (now 117.3b): Paying life" in (
        text
    )
    # Pinned, the edition says which rule is meant: no note.
    assert "named another rule" not in rule(instance, "116.3b", "--edition", "2010-06-18")
    from kb.build import load

    kb = load(instance)
    (meaning,) = other_meanings(kb, kb.rule("en-2009-07-11", "116.3b"))
    assert (meaning.first, meaning.last, meaning.editions) == ("en-2010-10-01", "en-2010-10-01", 1)
    assert meaning.canonical == "116.3b"
    # A misprint kept under a number is not a meaning of it: 2009-09-04 never printed 702.30e.
    assert all(
        m.first != "en-2009-09-04" for m in other_meanings(kb, kb.rule("en-2010-10-01", "702.30e"))
    )


def test_nearest_rules_fill_in_from_shallower_numbers(instance: Path) -> None:
    from kb.build import load

    kb = load(instance)
    near = nearest_rules(kb, "en-2003-03-15", "117.3b")
    assert len(near) == 5 and all(kb.rule("en-2003-03-15", n) for n in near)
    assert near[1:] == ["102.7", "102.8", "103.1", "103.2"]  # not the section heading alone


# ---- the minor defects of the same report: lists of editions, the concordance's hint ------------
def test_undated_editions_are_listed_last() -> None:
    from kb.knowledge.lookup import listed_editions
    from kb.knowledge.model import Edition, KnowledgeBase

    def full(day: str) -> Edition:
        return Edition(f"en-{day}", "en", day, "full", f"en-{day}", [f"{day}.txt"])

    wiki = Edition("en-wiki", "en", None, "partial", "2010-07-01..2019-06-30", ["w.txt"])
    wiki.fits = ["en-2010-10-01", "en-2011-02-04"]
    kb = KnowledgeBase(editions={e.id: e for e in (full("2011-02-04"), wiki, full("2010-10-01"))})
    # In time the quote stands where its wording fits; a list shows it after the dated ones.
    assert [e.id for e in kb.editions_of("en")][1] == "en-wiki"
    assert [e.id for e in listed_editions(kb, "en")] == [
        "en-2010-10-01",
        "en-2011-02-04",
        "en-wiki",
    ]


def test_editions_text_prints_the_numbering(instance: Path) -> None:
    out = io.StringIO()
    assert main(["editions", "--instance", str(instance)], out=out) == 0
    lines = {line.split()[-2]: line for line in out.getvalue().splitlines() if " rules " in line}
    assert "numbering pre-m10 " in lines["en-2003-03-15"]
    assert "numbering own " in lines["en-2009-07-11"]
    assert "numbering 2010-07-01..2019-06-30 " in lines["en-fr-wiki-la-priorite"]


@pytest.mark.parametrize(
    ("count", "limit", "hint"),
    [
        (25, 20, "5 more (--limit 25 shows them all, or --json)"),
        (581, 20, "561 more (--limit shows up to 100; --json has them all)"),
        (581, 100, "481 more (--json has them all)"),
    ],
)
def test_the_concordance_hint_offers_what_limit_can_show(count: int, limit: int, hint: str) -> None:
    from kb.cli.text import write_concordance
    from kb.knowledge.model import Edition, KnowledgeBase

    eds = (
        Edition("en-a", "en", "2020-01-01", "full", "en-a", []),
        Edition("en-b", "en", "2021-01-01", "full", "en-b", []),
    )
    groups: dict[str, list[dict[str, str | None]]] = {
        "edited": [{"old": f"100.{i}", "new": f"100.{i}"} for i in range(1, count + 1)],
        "created": [],
        "deleted": [],
        "moved": [],
    }
    out = io.StringIO()
    write_concordance(KnowledgeBase(), eds, groups, (), 0, limit, out)
    assert f"  … {hint}\n" in out.getvalue()


# ---- the web: the same lookups and notices on the pages -----------------------------------------
@pytest.fixture(scope="module")
def web(instance: Path):  # type: ignore[no-untyped-def]
    from kb.web import create_app

    app = create_app({"INSTANCE": instance, "TESTING": True, "PAGE_CACHE": False})
    yield app
    app.extensions["kb_search"].close()


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("/en/en-2010-06-18/rules/505.54", "/en/en-2010-06-18/rules/505.5"),
        ("/en/rules/505.54", "/en/en-2010-06-18/rules/505.5"),
        ("/r/505.54", "/en/en-2010-06-18/rules/505.5"),
        ("/en/en-2010-06-18/rules/505.54.json", "/en/en-2010-06-18/rules/505.5.json"),
        ("/r/113.7", "/en/rules/114.7?via=113.7"),  # 113.7 named another rule in 2009
        ("/en/rules/113.7", "/en/rules/114.7?via=113.7"),
        ("/r/113.6", "/en/rules/114.6"),  # one meaning: no note to make
    ],
)
def test_web_misprints_and_old_numbers_redirect(web, url: str, target: str) -> None:  # type: ignore[no-untyped-def]
    answer = web.test_client().get(url)
    assert answer.status_code == 302 and answer.headers["Location"] == target


def test_web_pages_say_how_the_number_was_printed(web, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from tests.web.test_rule_body import _pages

    client = web.test_client()

    def notices(url: str) -> list[dict[str, str | None]]:
        answer = client.get(url)
        assert answer.status_code == 200, url
        return answer.get_json()["page"]["numbering"]

    (second,) = notices("/en/en-2009-09-04/rules/702.30e.json")
    assert second["text"].startswith("Printed as 702.30d in this edition, after another rule")
    assert second["url"] == "/en/en-2009-09-04/rules/702.30d"
    (first,) = notices("/en/en-2009-09-04/rules/702.30d.json")
    assert first["url"] == "/en/en-2009-09-04/rules/702.30e"
    (typo,) = notices("/fr/en-2010-06-18/rules/505.5.json")
    assert typo == {
        "text": "Publiée sous le numéro 505.54 dans cette édition (une coquille)\u00a0: "
        "conservée comme 505.5.",
        "link": None,
        "url": None,
    }
    (meaning,) = notices("/en/rules/114.7.json?via=113.7")
    assert meaning["text"].startswith("113.7, an earlier number of this rule, numbered another")
    assert meaning["link"] == "114.8"
    assert notices("/en/rules/114.7.json") == []
    assert notices("/en/rules/114.7.json?via=999.9") == []  # not a number of this rule
    assert notices("/en/en-2009-09-04/rules/702.30c.json") == []
    urls = [
        "/en/en-2009-09-04/rules/702.30e",
        "/ja/en-2009-09-04/rules/702.30d",
        "/fr/en-2010-06-18/rules/505.5",
        "/en/rules/114.7?via=113.7",
    ]
    assert _pages(web, urls, monkeypatch) == []  # the written page is the template's
