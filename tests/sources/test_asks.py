"""The reader of "Players ask" (corpus/asks) and its place in a build: questions read with their
file and line, bad files and entries reported and left out, numbers made canonical."""

from __future__ import annotations

from pathlib import Path

from kb.build.asks import ASKS_DIR, ASKS_EDITION, attach_asks
from kb.knowledge.asks import MAX_PAGE_ASKS, Ask
from kb.knowledge.model import KnowledgeBase, Rule
from kb.sources.asks import read_asks

GOOD = """# Players ask, section 117
[[ask]]
lang = "en"
q = "can I   respond to a spell?"
rules = ["117.3c", "117.3c", "117.1a"]

[[ask]]
lang = "en"
q = "who gets priority first?"
rules = ["117.3a"]
"""


def _write(root: Path, lang: str, name: str, text: str) -> Path:
    folder = root / lang
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_questions_are_read_with_their_file_line_and_numbers(tmp_path: Path) -> None:
    _write(tmp_path, "en", "117.toml", GOOD)
    asks, problems = read_asks(tmp_path)
    assert problems == []
    assert [(a.key, a.line, a.q, a.rules) for a in asks] == [
        ("en/117#1", 2, "can I respond to a spell?", ["117.3c", "117.1a"]),
        ("en/117#2", 7, "who gets priority first?", ["117.3a"]),
    ]


def test_a_file_that_is_not_toml_is_left_out_with_its_line(tmp_path: Path) -> None:
    _write(tmp_path, "fr", "117.toml", '[[ask]]\nlang = "fr"\nq = "pas fermé\n')
    _write(tmp_path, "fr", "118.toml", GOOD.replace('"en"', '"fr"'))
    asks, problems = read_asks(tmp_path)
    assert [a.key for a in asks] == ["fr/118#1", "fr/118#2"]
    [problem] = problems
    assert problem.severity == "error"
    assert problem.path.endswith("117.toml") and problem.line == 3


def test_a_bad_entry_is_left_out_alone_with_its_line(tmp_path: Path) -> None:
    bad = GOOD + '\n[[ask]]\nlang = "ja"\nq = "wrong folder"\nrules = ["117.3a"]\n'
    bad += '\n[[ask]]\nlang = "en"\nq = "no rules"\nrules = []\n'
    bad += '\n[[ask]]\nlang = "en"\nq = "not a number"\nrules = ["lifelink"]\n'
    _write(tmp_path, "en", "117.toml", bad)
    asks, problems = read_asks(tmp_path)
    assert len(asks) == 2
    assert [(p.line, p.severity) for p in problems] == [
        (12, "warning"),
        (17, "warning"),
        (22, "warning"),
    ]
    assert "'ja'" in problems[0].message and "lifelink" in problems[2].message


def test_a_missing_folder_is_no_problem(tmp_path: Path) -> None:
    assert read_asks(tmp_path / "none") == ([], [])


def test_a_build_maps_numbers_to_canonical_rules_and_reports_unknown_ones(tmp_path: Path) -> None:
    _write(tmp_path, "en", "117.toml", GOOD)
    kb = KnowledgeBase()
    table = {
        n: Rule(ASKS_EDITION, "en", n, "subrule", "text", canonical=n) for n in ("117.3a", "117.3c")
    }
    kb.rules[ASKS_EDITION] = table
    problems = attach_asks(kb, tmp_path)
    assert [a.rules for a in kb.asks] == [["117.3c"], ["117.3a"]]
    [problem] = problems
    assert problem.line == 2 and "117.1a" in problem.message


def test_the_embedded_questions_all_read_and_cite_rules_of_their_edition() -> None:
    asks, problems = read_asks(ASKS_DIR)
    assert problems == []
    by_lang = {lang: sum(a.lang == lang for a in asks) for lang in ("en", "fr", "ja")}
    assert all(n > 500 for n in by_lang.values()), by_lang


def test_a_rule_shows_questions_in_its_language_else_in_english() -> None:
    kb = KnowledgeBase()
    kb.asks = [
        Ask("en/117#1", "en", "q1", ["117.3c"]),
        Ask("fr/117#1", "fr", "q2", ["117.3c", "117.3a"]),
        *(Ask(f"en/117#{i}", "en", f"more {i}", ["117.3a"]) for i in range(2, 12)),
    ]
    assert kb.asks_for("117.3c", "fr")[0:2] == ("fr", [kb.asks[1]])
    lang, shown, more = kb.asks_for("117.3c", "ja")
    assert (lang, [a.id for a in shown], more) == ("en", ["en/117#1"], 0)
    lang, shown, more = kb.asks_for("117.3a", "en")
    assert len(shown) == MAX_PAGE_ASKS and more == 10 - MAX_PAGE_ASKS
    assert kb.asks_for("999.9", "en") == ("en", [], 0)
    # The model round-trips through JSON.
    assert KnowledgeBase.from_json(kb.to_json()).asks == kb.asks
