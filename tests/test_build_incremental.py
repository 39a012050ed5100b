"""Incremental builds: one edition added to a built archive gives the database and the search
results of a full build of the same inputs, and anything else falls back to a full build.

Three editions of ../shared/corpus-raw/cr-en keep this inside CI's budget: 2019-06-12 and
2019-07-12 (the renumbering 116 -> 117, so adding either end moves canonical numbers across the
archive) and 2023-11-17.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from kb.build import BUILD_FILE, KB_FILE, build, load

EDITIONS = ("2019-06-12", "2019-07-12", "2023-11-17")
QUERIES = ("priority", "state-based actions", "mulligan", "117.3b", "commander damage")


def _files(folder: Path, dates: tuple[str, ...], cr_en_dir: Path) -> Path:
    """A folder of links to the editions of ``dates``."""
    folder.mkdir(parents=True, exist_ok=True)
    for date in dates:
        (folder / f"MagicCompRules-{date}.txt").symlink_to(cr_en_dir / f"MagicCompRules-{date}.txt")
    return folder


def _incremental(root: Path, base: tuple[str, ...], added: str, cr_en_dir: Path):
    """Build ``base``, then add one edition; returns (instance, report of the second build)."""
    instance = root / "instance"
    build(instance, [_files(root / "base", base, cr_en_dir)], run_examples_too=False)
    report = build(instance, [_files(root / "added", (added,), cr_en_dir)], run_examples_too=False)
    return instance, report


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path) -> Path:
    root = tmp_path_factory.mktemp("incr-full")
    instance = root / "instance"
    build(instance, [_files(root / "all", EDITIONS, cr_en_dir)], run_examples_too=False)
    return instance


@pytest.fixture(scope="module")
def full_renumbered(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path) -> Path:
    root = tmp_path_factory.mktemp("incr-full-renumbered")
    instance = root / "instance"
    build(instance, [_files(root / "all", EDITIONS[:2], cr_en_dir)], run_examples_too=False)
    return instance


@pytest.fixture(scope="module")
def renumbered(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path):
    """2019-07-12 added after 2019-06-12: the new newest edition renumbers 116 -> 117, so the
    lineages of every older rule of those sections are renamed."""
    return _incremental(
        tmp_path_factory.mktemp("incr-renumbered"), EDITIONS[:1], EDITIONS[1], cr_en_dir
    )


@pytest.fixture(scope="module")
def newest(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path):
    return _incremental(
        tmp_path_factory.mktemp("incr-newest"), EDITIONS[:2], EDITIONS[2], cr_en_dir
    )


@pytest.fixture(scope="module")
def middle(tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path):
    base = (EDITIONS[0], EDITIONS[2])
    return _incremental(tmp_path_factory.mktemp("incr-middle"), base, EDITIONS[1], cr_en_dir)


#: Each table as compared; rows as a sorted multiset (row order is no part of the content,
#: except each edition's rule order, compared apart).
TABLES = {
    "meta": "key, value",
    "editions": "id, position, lang, date, kind, numbering, version, translates, title, "
    "sources, fits, counts",
    "rules": "edition, number, ord, lang, kind, title, text, parent, source, line, examples, "
    "children, flags, refs, example_refs, terms, term_spans",
    "lineage": "edition, number, lineage, canonical, change, compare",
    "refs": 'edition, source, target, label, start, "end", resolved',
    "glossary": "edition, key, lang, term, definition, obsolete, source, line, aliases, see, "
    "rule_refs, refs",
    "glossary_aliases": "edition, lang, alias, key",
    "comparisons": "span, position, old, new",
    "changes": "span, position, change, old, new",
    "examples": "id, position, title, path, markdown, passed, trace, trace_text, rules, titles, "
    "prose",
    "example_rules": "example, rule, anchor",
    "terms": "id, position, en, fr, ja, rules",
    "commentary": "id, position, lang, text, source, line, heading, about_rules, about_terms",
    "tournament": "id, position, lang, section, text, source, line, flags",
    "warnings": "text",
}


def _content(instance: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(f"file:{instance / KB_FILE}?mode=ro", uri=True)
    try:
        out = {
            table: sorted(conn.execute(f"SELECT {cols} FROM {table}").fetchall(), key=repr)
            for table, cols in TABLES.items()
        }
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'history'").fetchone():
            # The rule pages' precomputed history (kb.history), refreshed for what changed.
            out["history"] = sorted(conn.execute("SELECT * FROM history"))
        out["rule order"] = conn.execute(
            "SELECT edition, number FROM rules ORDER BY rowid"
        ).fetchall()
        out["rule order"].sort(key=lambda row: row[0])  # stable: each edition's order kept
    finally:
        conn.close()
    out["meta"] = [row for row in out["meta"] if row[0] != "content_hash"]
    # The two builds read the same files from different folders: compare file names.
    named = {table: [tuple(_named(v) for v in row) for row in rows] for table, rows in out.items()}
    for table in TABLES:
        named[table].sort(key=repr)
    return named


def _named(value: object) -> object:
    return (
        re.sub(r"[^\s\"\[]*/(MagicCompRules-)", r"\1", value) if isinstance(value, str) else value
    )


def _assert_same(got: dict[str, list[tuple]], want: dict[str, list[tuple]]) -> None:
    for table in want:
        if got[table] == want[table]:
            continue
        wanted, gotten = set(want[table]), set(got[table])  # once: the tables hold 10^4 rows
        extra = [r for r in got[table] if r not in wanted][:3]
        missing = [r for r in want[table] if r not in gotten][:3]
        raise AssertionError(f"{table}: extra {extra}, missing {missing}")


def _index(instance: Path) -> dict:
    """The search index's documents and what the searcher reads of it besides the postings."""
    from whoosh import index as whoosh_index

    meta = json.loads((instance / "index" / "meta.json").read_text(encoding="utf-8"))
    meta.pop("content_hash")
    ix = whoosh_index.open_dir(str(instance / "index"), indexname="kb")
    with ix.reader() as reader:
        meta["whoosh docs"] = reader.doc_count_all()
        meta["vocabulary"] = {
            name: [(t, i.doc_frequency()) for t, i in reader.iter_field(name)]
            for name in sorted(reader.indexed_field_names())
        }
    ix.close()
    from kb.search import postings, snippets

    # What the searcher reads besides Whoosh: the postings' rows and the snippets' offsets.
    conn = sqlite3.connect(instance / "index" / postings.FILE)
    meta[postings.FILE] = hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    conn.close()
    # The offsets, without the digest of the index head that ties them to their build (the
    # head holds the content hash, which the two builds' corpus folders make differ).
    version, _head, stop, rows = marshal.loads((instance / "index" / snippets.FILE).read_bytes())
    meta[snippets.FILE] = (version, stop, sorted(rows.items()))
    return meta


def _search(instance: Path) -> list[list[tuple]]:
    from kb.search.searcher import Searcher

    kb = load(instance)
    out = []
    with Searcher(instance / "index", kb) as searcher:
        for query in QUERIES:
            result = searcher.search(query, lang="en", limit=10)
            out.append(
                [(h.kind, h.number, h.edition, tuple(h.editions), h.canonical) for h in result.hits]
            )
    return out


@pytest.mark.parametrize("case", ["newest", "middle", "renumbered"])
def test_one_edition_added_equals_a_full_build(case: str, request) -> None:
    instance, report = request.getfixturevalue(case)
    full = request.getfixturevalue("full_renumbered" if case == "renumbered" else "full")
    assert report.notes[0].startswith("incremental: "), report.notes[:2]
    _assert_same(_content(instance), _content(full))
    got, want = _index(instance), _index(full)
    for key in want:
        assert got[key] == want[key], key
    assert _search(instance) == _search(full)
    info = json.loads((instance / BUILD_FILE).read_text(encoding="utf-8"))
    assert info["totals"] == json.loads((full / BUILD_FILE).read_text(encoding="utf-8"))["totals"]


def test_the_added_edition_is_built_beside_the_previous_one(newest) -> None:
    instance, _ = newest
    builds = sorted(p.name for p in (instance / "builds").iterdir())
    assert len(builds) == 2  # versioned: the previous build is kept, current points at the new
    assert (instance / "current").resolve().name == max(builds)
    assert "en-2023-11-17" in load(instance).editions


def test_unchanged_after_an_incremental_build_is_skipped(newest) -> None:
    instance, _ = newest
    assert build(instance, run_examples_too=False).skipped


def test_a_changed_file_falls_back_to_a_full_build(tmp_path: Path, cr_en_dir: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    shutil.copy(cr_en_dir / f"MagicCompRules-{EDITIONS[0]}.txt", base / "a.txt")
    instance = tmp_path / "instance"
    build(instance, [base], run_examples_too=False)
    with (base / "a.txt").open("a", encoding="utf-8") as handle:
        handle.write("\n")
    added = _files(tmp_path / "added", (EDITIONS[1],), cr_en_dir)
    report = build(instance, [added], run_examples_too=False)
    assert report.notes[0] == "full build: a.txt changed"
    assert {"en-2019-06-14", "en-2019-07-12"} <= set(load(instance).editions)


def _previous(folder: Path, record: dict, **changes) -> Path:
    """A previous build folder whose build.json is ``record`` with ``changes``."""
    folder.mkdir()
    (folder / BUILD_FILE).write_text(json.dumps({**record, **changes}), encoding="utf-8")
    return folder


def _record(paths: list[Path]) -> tuple[list, dict]:
    from kb.build import content_hash, corpus_inputs, input_digests

    inputs = corpus_inputs(paths)
    return inputs, {
        "inputs": input_digests(inputs),
        "code_hash": content_hash([]),
        "examples_run": False,
    }


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"code_hash": "0" * 64}, "the previous build was made by other code or data files"),
        ({"inputs": None}, "the previous build was made by other code or data files"),
        ({"examples_run": True}, "the previous build ran the examples differently"),
    ],
)
def test_a_previous_build_of_other_code_is_not_reused(
    tmp_path: Path, cr_en_dir: Path, change: dict, why: str
) -> None:
    from kb.build.incremental import NotIncremental, _the_new_file

    paths = [cr_en_dir / f"MagicCompRules-{EDITIONS[0]}.txt"]
    _, before = _record(paths)
    inputs, now = _record([*paths, cr_en_dir / f"MagicCompRules-{EDITIONS[1]}.txt"])
    previous = _previous(tmp_path / "previous", before, **change)
    with pytest.raises(NotIncremental, match=re.escape(why)):
        _the_new_file(previous / BUILD_FILE, inputs, now)
    assert _the_new_file(_previous(tmp_path / "same", before) / BUILD_FILE, inputs, now)[0] == Path(
        cr_en_dir / f"MagicCompRules-{EDITIONS[1]}.txt"
    )


def test_a_vanished_file_or_two_new_ones_are_not_one_edition_added(
    tmp_path: Path, cr_en_dir: Path
) -> None:
    from kb.build.incremental import NotIncremental, _the_new_file

    a, b, c = (cr_en_dir / f"MagicCompRules-{d}.txt" for d in EDITIONS)
    _, before = _record([a, b])
    inputs, now = _record([a, c])
    with pytest.raises(NotIncremental, match=re.escape(f"{b.name} is no longer an input")):
        _the_new_file(_previous(tmp_path / "p1", before) / BUILD_FILE, inputs, now)
    _, before = _record([a])
    inputs, now = _record([a, b, c])
    with pytest.raises(NotIncremental, match="2 files added, not one"):
        _the_new_file(_previous(tmp_path / "p2", before) / BUILD_FILE, inputs, now)
    with pytest.raises(NotIncremental, match=r"no readable build\.json"):
        _the_new_file(tmp_path / "nowhere" / BUILD_FILE, inputs, now)


def test_a_database_of_another_format_is_not_reused(tmp_path: Path, cr_en_dir: Path) -> None:
    from kb.base.buildcache import BuildCache
    from kb.build.incremental import NotIncremental, add_edition

    a, b = (cr_en_dir / f"MagicCompRules-{d}.txt" for d in EDITIONS[:2])
    _, before = _record([a])
    inputs, now = _record([a, b])
    previous = _previous(tmp_path / "previous", before)
    conn = sqlite3.connect(previous / KB_FILE)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('format', 'other')")
    conn.commit()
    conn.close()
    with pytest.raises(NotIncremental, match="the previous database cannot be reused"):
        add_edition(tmp_path / "i", previous, inputs, now, "x", BuildCache(None), None, {})
