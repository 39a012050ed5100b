"""The ``kb`` command: each subcommand's output, JSON shape, and clear errors without tracebacks."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb.build import KB_FILE
from kb.cli.main import main
from kb.cli.text import MAX_GAMES


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_rule_json_shape(embedded_instance: Path) -> None:
    code, out = run("rule", "117.3b", "--json", "--instance", str(embedded_instance))
    assert code == 0
    data = json.loads(out)
    for key in (
        "number",
        "lang",
        "edition",
        "kind",
        "title",
        "text",
        "examples",
        "parent",
        "children",
        "refs",
        "referenced_by",
        "canonical",
        "history",
        "translations",
        "terms",
    ):
        assert key in data, key
    assert data["number"] == "117.3b" and data["canonical"] == "117.3b"
    assert data["translations"]["fr"]["number"] == "116.3b"
    assert all({"edition", "number", "change"} <= set(h) for h in data["history"])
    assert data["engine_examples"], "examples citing 117.3b are attached"
    assert data["engine_examples"][0]["trace"]


def test_rule_any_spelling_and_old_number(embedded_instance: Path) -> None:
    code, out = run("rule", "１１７．３ｂ", "--instance", str(embedded_instance))
    assert code == 0 and "117.3b" in out
    code, out = run(
        "rule", "116.3b", "--lang", "fr", "--json", "--instance", str(embedded_instance)
    )
    assert code == 0 and json.loads(out)["canonical"] == "117.3b"


def test_unknown_rule_is_a_clear_error(
    embedded_instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("rule", "117.9z", "--instance", str(embedded_instance))
    err = capsys.readouterr().err
    assert code == 1
    assert "no rule 117.9z" in err and "nearest" in err and "Traceback" not in err
    code, _ = run("rule", "banana", "--instance", str(embedded_instance))
    assert code == 1 and "not a rule number" in capsys.readouterr().err
    code, _ = run("rule", "117.3b", "--edition", "1999-01-01", "--instance", str(embedded_instance))
    assert code == 1 and "no en edition" in capsys.readouterr().err


def test_glossary_aliases_and_case(
    embedded_instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(
        "glossary", "pass in succession", "--json", "--instance", str(embedded_instance)
    )
    assert code == 0 and json.loads(out)["term"] == "Pass in Succession"
    code, _ = run("glossary", "no such term", "--instance", str(embedded_instance))
    assert code == 1 and "no glossary entry" in capsys.readouterr().err


def test_editions_json(embedded_instance: Path) -> None:
    code, out = run("editions", "--json", "--instance", str(embedded_instance))
    rows = json.loads(out)
    assert code == 0
    for row in rows:
        assert {
            "lang",
            "date",
            "source",
            "numbering",
            "rules",
            "examples",
            "glossary",
            "unresolved_refs",
        } <= set(row)
    ja = next(r for r in rows if r["lang"] == "ja")
    assert ja["date"] == "2023-11-17"
    # rules counts three-digit numbers, headings included: the JA quote has 116 and 116.1 … 116.3.
    assert ja["rules"] == 14


def test_concordance_command(full_instance: Path) -> None:
    code, out = run(
        "concordance", "2019-06-14", "2019-07-12", "--json", "--instance", str(full_instance)
    )
    data = json.loads(out)
    assert code == 0
    assert {"old": "116.3b", "new": "117.3b"} in data["moved"]
    assert any(item["new"] == "111" for item in data["created"])


def test_editions_counts_full(full_instance: Path) -> None:
    _code, out = run("editions", "--json", "--instance", str(full_instance))
    rows = {r["date"]: r for r in json.loads(out) if r["lang"] == "en" and r["date"]}
    assert rows["2025-11-14"]["rules"] > 3000 and rows["2025-11-14"]["glossary"] > 700


def test_python_dash_m_works(embedded_instance: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kb", "rule", "117.3c", "--instance", str(embedded_instance)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and "117.3c" in proc.stdout


# ---- bad input: a clear message naming the file, no traceback, the instance left intact --------
BAD_FILES = {
    "empty.txt": b"",
    "binary.txt": bytes(range(256)) * 8,
    "unknown.txt": b"Just some notes about my deck.\nNothing to see here.\n",
}


@pytest.fixture()
def private_instance(embedded_instance: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "instance"
    shutil.copytree(embedded_instance, copy)
    return copy


def _truncated_cr(cr_en_dir: Path) -> bytes:
    data = (cr_en_dir / "MagicCompRules-2025-11-14.txt").read_bytes()
    return data[: len(data) // 3]


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_file_rejected_instance_intact(
    name: str, private_instance: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / name
    bad.write_bytes(BAD_FILES[name])
    before = (private_instance / KB_FILE).read_bytes()
    code, _ = run("build", "--corpus", str(bad), "--instance", str(private_instance))
    err = capsys.readouterr().err
    assert code == 1
    assert name in err and "Traceback" not in err
    assert (private_instance / KB_FILE).read_bytes() == before
    assert (
        "paths" not in (private_instance / "corpus.json").read_text()
        or name not in (private_instance / "corpus.json").read_text()
    )


def test_truncated_cr_rejected(
    cr_en_dir: Path, private_instance: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "MagicCompRules-truncated.txt"
    bad.write_bytes(_truncated_cr(cr_en_dir))
    code, _ = run("build", "--corpus", str(bad), "--instance", str(private_instance))
    err = capsys.readouterr().err
    assert code == 1 and "MagicCompRules-truncated.txt" in err and "Traceback" not in err


def test_duplicate_rule_number_reported(
    private_instance: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = Path(__file__).parent / "fixtures" / "cr"
    dup = next(fixture.glob("*dup*"), None)
    if dup is None:
        pytest.fail("tests/fixtures/cr has no duplicate-number fixture")
    code, out = run("build", "--corpus", str(dup), "--instance", str(private_instance))
    assert code == 0
    assert "duplicate" in out and dup.name in out


def test_missing_corpus_path(private_instance: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("build", "--corpus", "/no/such/folder", "--instance", str(private_instance))
    err = capsys.readouterr().err
    assert code == 1 and "/no/such/folder" in err and "no such file" in err


def test_current_number_finds_the_text_in_another_language(embedded_instance: Path) -> None:
    code, out = run(
        "rule", "117.3b", "--lang", "fr", "--json", "--instance", str(embedded_instance)
    )
    data = json.loads(out)
    assert code == 0 and data["lang"] == "fr" and data["number"] == "116.3b"
    assert data["canonical"] == "117.3b"


def test_a_named_instance_must_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "typo"
    code, _ = run("rule", "117.3b", "--instance", str(missing))
    assert code == 1 and "no build in" in capsys.readouterr().err
    assert not missing.exists()


def test_glossary_through_the_term_base(embedded_instance: Path) -> None:
    code, out = run("glossary", "優先権", "--json", "--instance", str(embedded_instance))
    data = json.loads(out)
    assert code == 0 and data["term"] == "Priority" and data["found_as"] == "priority"


@pytest.mark.parametrize("limit", ["0", "-3", "1000", "ten"])
def test_search_limit_is_checked(limit: str, embedded_instance: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        run("search", "priority", "--limit", limit, "--instance", str(embedded_instance))
    assert exc.value.code == 2


def test_build_error_names_file_once(
    private_instance: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("My deck notes.\n", encoding="utf-8")
    code, _ = run("build", "--corpus", str(bad), "--instance", str(private_instance))
    err = capsys.readouterr().err
    assert code == 1 and err.count("error:") == 1 and f"{bad}:1: unknown format" in err


# ---- what a new user met (issue 12, items 4, 7, 8, 9) --------------------------------------------
def test_rule_text_shows_what_the_json_has(full_instance: Path) -> None:
    code, out = run("rule", "117.3b", "--instance", str(full_instance))
    assert code == 0
    assert "Parent: 117.3 Which player has priority" in out
    assert "Glossary terms: active player, priority" in out
    assert "Example games on the engine" in out and "117-3b-active-player-after-resolution" in out
    # the history folds the editions that printed it unchanged into the change before them
    assert "2011-09-30  116.3b  first in the corpus; unchanged in" in out
    assert "2019-07-12  117.3b  moved; unchanged in" in out
    code, out = run("rule", "117.2a", "--instance", str(full_instance))
    assert "Refers to: 603" in out


def test_rule_children_are_cut_with_an_ellipsis(full_instance: Path) -> None:
    _code, out = run("rule", "117", "--instance", str(full_instance))
    children = [line for line in out.splitlines() if line.startswith("  117.")]
    assert children and all(len(line) <= 2 + 110 for line in children)
    cut = [line for line in children if line.startswith("  117.1 ")]
    assert cut and cut[0].endswith("…")


def test_a_heading_translation_shows_its_title(full_instance: Path) -> None:
    # `kb rule 116 --lang ja` ended with "[en …] 116 " and nothing after: 116 is a heading.
    _code, out = run("rule", "116", "--lang", "ja", "--instance", str(full_instance))
    last = out.rstrip("\n").splitlines()[-1]
    assert last.startswith("[en ") and last.endswith("116 Special Actions")


@pytest.mark.parametrize(
    ("typed", "found", "note"),
    [
        # "APNAP" is a name of the concept in the term base (the web's lookup too)
        ("APNAP", "APNAP Order", "('APNAP' is “apnap order” in the term base)"),
        ("stak", "Stack", "(no entry 'stak'; showing “Stack”)"),
    ],
)
def test_glossary_tolerates_a_prefix_or_a_typo(
    typed: str, found: str, note: str, full_instance: Path
) -> None:
    code, out = run("glossary", typed, "--instance", str(full_instance))
    assert code == 0
    assert out.splitlines()[0] == note
    assert out.splitlines()[1].startswith(found)


def test_glossary_suggests_when_several_match(
    full_instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("glossary", "declare att", "--instance", str(full_instance))
    err = capsys.readouterr().err
    assert code == 1
    assert "did you mean: Declare Attackers, Declare Attackers Step" in err


def test_search_errors_like_every_command(
    embedded_instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(
        "search", "priority", "--edition", "bogus", "--instance", str(embedded_instance)
    )
    err = capsys.readouterr().err
    assert code == 1 and out == ""
    assert err.startswith("kb: error: ") and "bogus" in err and err.count("\n") == 1
    code, out = run(
        "search", "priority", "--edition", "bogus", "--json", "--instance", str(embedded_instance)
    )
    assert code == 1 and json.loads(out)["ok"] is False


def test_get_says_what_is_wrong(
    embedded_instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("get", "/nope", "--instance", str(embedded_instance))
    err = capsys.readouterr().err
    assert code == 1 and err == "kb: error: /nope: HTTP 404: No page at this address.\n"
    code, _ = run("get", "/en/rules/117.9z.json", "--instance", str(embedded_instance))
    assert code == 1 and "No rule 117.9z" in capsys.readouterr().err


def test_nearest_rules_stay_near(full_instance: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 999.9 suggested "9, 900-903": the start of section 9, the farthest rules from 999.9
    run("rule", "999.9", "--instance", str(full_instance))
    err = capsys.readouterr().err
    near = err.split("nearest: ", 1)[1].strip().split(", ")
    assert near[0] == "9" and all(n.startswith("90") and n > "903" for n in near[1:]), near
    run("rule", "117.3z", "--instance", str(full_instance))
    near = capsys.readouterr().err.split("nearest: ", 1)[1].strip().split(", ")
    assert near == ["117.3", "117.3a", "117.3b", "117.3c", "117.3d"]


def test_concordance_any_two_editions_either_way(full_instance: Path) -> None:
    code, out = run(
        "concordance", "2025-11-14", "2011-09-30", "--json", "--instance", str(full_instance)
    )
    data = json.loads(out)
    assert code == 0 and data["from"] == "en-2025-11-14" and data["to"] == "en-2011-09-30"
    assert {"old": "117.3b", "new": "116.3b"} in data["moved"]


def test_concordance_text_leads_with_edits_and_folds_moves(full_instance: Path) -> None:
    code, out = run(
        "concordance", "2019-06-14", "2019-07-12", "--limit", "50", "--instance", str(full_instance)
    )
    lines = out.splitlines()
    assert code == 0
    heads = [i for i, line in enumerate(lines) if not line.startswith("  ")]
    order = [lines[i].split(" (")[0] for i in heads[2:]]
    assert order == ["edited", "created", "deleted", "moved without other change"]
    assert "  110.5c -> 111.4  Tokens" in lines
    moved = next(line for line in lines if line.startswith("moved without other change"))
    runs = int(moved.split(" in ")[1].split()[0])
    assert "227" in moved and runs < 227 / 5


def test_rule_lists_example_games_in_the_asked_language(embedded_instance: Path) -> None:
    from kb.build import load

    kb = load(embedded_instance)
    games = kb.examples_for("117.3b")
    translated = [x for x in games if x.titles.get("fr") and x.titles["fr"] != x.title]
    assert translated, "an example citing 117.3b has a French title"
    shown = games[:MAX_GAMES]
    _code, out = run("rule", "117.3b", "--lang", "fr", "--instance", str(embedded_instance))
    for x in shown:
        expected = x.titles.get("fr") or x.title  # English when untranslated
        assert f"  {x.id}  {expected}" in out
    assert any(x.title not in out for x in shown if x in translated)
    _code, out = run("rule", "117.3b", "--instance", str(embedded_instance))
    assert all(f"  {x.id}  {x.title}" in out for x in shown)
    data = json.loads(run("rule", "117.3b", "--json", "--instance", str(embedded_instance))[1])
    assert data["engine_examples"][0]["titles"]["en"] == data["engine_examples"][0]["title"]
