"""The SQLite store: what is read back equals what was built, lookup by lookup."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kb import store
from kb.build import build_kb
from kb.knowledge.model import KnowledgeBase


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[KnowledgeBase, KnowledgeBase]:
    """The embedded corpus in memory, and the same written to SQLite and opened read-only."""
    kb, _, _ = build_kb()
    kb.content_hash = "test-hash"
    path = tmp_path_factory.mktemp("store") / store.DB_FILE
    store.write(kb, path)
    return kb, store.open_kb(path)


@pytest.fixture(scope="module")
def full_pair(
    tmp_path_factory: pytest.TempPathFactory, cr_en_dir: Path
) -> tuple[KnowledgeBase, KnowledgeBase]:
    """The six shared editions in memory and in SQLite."""
    kb, _, _ = build_kb([cr_en_dir], run_examples_too=False)
    path = tmp_path_factory.mktemp("store-full") / store.DB_FILE
    store.write(kb, path)
    return kb, store.open_kb(path)


def test_every_table_reads_back_equal(pair) -> None:
    mem, db = pair
    assert db.content_hash == "test-hash"
    assert db.editions == mem.editions
    assert list(db.editions) == sorted(mem.editions, key=lambda e: list(db.editions).index(e))
    assert set(db.rules) == set(mem.rules)
    for ed_id, table in mem.rules.items():
        assert list(db.rules[ed_id]) == list(table)
        assert dict(db.rules[ed_id].items()) == table
        assert len(db.rules[ed_id]) == len(table)
        for number, rule in table.items():
            assert db.rules[ed_id][number] == rule
            assert number in db.rules[ed_id]
    for ed_id, table in mem.glossary.items():
        assert dict(db.glossary[ed_id].items()) == table
        assert bool(db.glossary[ed_id]) == bool(table)
    assert {k: db.concordance[k] for k in db.concordance} == mem.concordance
    assert {k: db.changes[k] for k in db.changes} == mem.changes
    assert list(db.examples) == mem.examples
    assert list(db.terms) == mem.terms
    assert list(db.commentary) == mem.commentary
    assert list(db.tournament) == mem.tournament
    assert list(db.warnings) == mem.warnings


def test_examples_keep_titles_and_prose_per_language(pair) -> None:
    mem, db = pair
    for mine, theirs in zip(db.examples, mem.examples, strict=True):
        assert mine.titles == theirs.titles and mine.prose == theirs.prose


def test_every_lookup_answers_as_in_memory(pair) -> None:
    mem, db = pair
    _same_lookups(mem, db, list(mem.rules))


def test_lookups_at_scale_answer_as_in_memory(full_pair) -> None:
    """The six official editions: every lookup on the newest and oldest English editions."""
    mem, db = full_pair
    eds = mem.editions_of("en", full_only=True)
    _same_lookups(mem, db, [eds[0].id, eds[-1].id], every_rule=False)


def _same_lookups(
    mem: KnowledgeBase, db: KnowledgeBase, editions: list[str], every_rule: bool = True
) -> None:
    for lang in ("en", "fr", "ja"):
        assert db.editions_of(lang) == mem.editions_of(lang)
        assert db.newest(lang) == mem.newest(lang)
        assert db.glossary_edition(lang) == mem.glossary_edition(lang)
    for ed_id in editions:
        assert db.ordered_numbers(ed_id) == mem.ordered_numbers(ed_id)
        rules = list(mem.rules[ed_id].values())
        sample = rules if every_rule else rules[::7]
        for rule in sample:
            assert db.rule(ed_id, rule.number) == rule
            assert db.neighbours(rule) == mem.neighbours(rule)
            assert db.referenced_by(rule) == mem.referenced_by(rule)
            assert db.subtree(rule) == mem.subtree(rule)
            assert db.counterparts(rule) == mem.counterparts(rule)
            assert db.find(rule.lang, rule.number) == mem.find(rule.lang, rule.number)
            lin = rule.lineage
            assert db.history(lin, rule.lang) == mem.history(lin, rule.lang)
            assert db.history_texts(lin, rule.lang) == mem.history_texts(lin, rule.lang)
            assert db.current(lin, "en") == mem.current(lin, "en")
            assert db.in_edition(lin, ed_id) == mem.in_edition(lin, ed_id)
            if rule.canonical:
                assert db.examples_for(rule.canonical) == mem.examples_for(rule.canonical)
        for entry in mem.glossary.get(ed_id, {}).values():
            for name in (entry.term, entry.term.upper(), *entry.aliases):
                for edition in (None, ed_id):
                    assert db.glossary_lookup(name, entry.lang, edition) == mem.glossary_lookup(
                        name, entry.lang, edition
                    )
    assert db.rule("nope", "117") is None and db.find("en", "999.9z") is None
    assert db.glossary_lookup("no such term", "en") is None
    assert db.examples_for("999") == [] == mem.examples_for("999")
    assert "999.9z" not in db.concordance and db.concordance.get("999.9z") is None


def test_any_sqlite_client_reads_it(pair, tmp_path: Path) -> None:
    """The README's queries: a rule's lineage across editions, and who cites a rule."""
    mem, db = pair
    conn = sqlite3.connect(db.path)
    rows = conn.execute(
        "SELECT edition, number, change FROM lineage WHERE lineage = '117.3b' ORDER BY edition"
    ).fetchall()
    assert {(e, n) for e, n, _ in rows} == set(mem.concordance["117.3b"].items())
    ed, target = next(
        (ed, ref.number)
        for ed, table in mem.rules.items()
        for rule in table.values()
        for ref in rule.refs
        if ref.resolved
    )
    cited = conn.execute(
        "SELECT DISTINCT source FROM refs WHERE edition = ? AND target = ?", (ed, target)
    ).fetchall()
    rule = mem.rule(ed, target)
    assert rule is not None and [s for (s,) in cited] == mem.referenced_by(rule) != []


def test_read_only_and_never_written(pair) -> None:
    _, db = pair
    with pytest.raises(sqlite3.OperationalError):
        db._db.conn().execute("DELETE FROM rules")


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / store.DB_FILE
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(store.StoreError, match="not a knowledge base"):
        store.open_kb(bad)
    with pytest.raises(store.StoreError, match="no such database"):
        store.open_kb(tmp_path / "missing.sqlite")


def test_queries_use_indexes(pair) -> None:
    """Every lookup a page makes is an index search, never a scan of a whole table."""
    _, db = pair
    conn = db._db.conn()
    queries = [
        ("SELECT 1 FROM rules r WHERE r.edition = ? AND r.number = ?", ("a", "b")),
        ("SELECT number FROM rules WHERE edition = ? AND ord IN (?, ?)", ("a", 1, 2)),
        ("SELECT edition FROM rules WHERE number = ? AND lang = ?", ("a", "en")),
        ("SELECT edition, number FROM lineage WHERE lineage = ?", ("a",)),
        ("SELECT source FROM refs WHERE edition = ? AND target = ?", ("a", "b")),
        ("SELECT key FROM glossary WHERE lang = ? AND key = ?", ("en", "b")),
        ("SELECT key FROM glossary_aliases WHERE lang = ? AND alias = ?", ("en", "b")),
        ("SELECT example FROM example_rules WHERE anchor = ?", ("117",)),
        ("SELECT change FROM changes WHERE span = ? ORDER BY position", ("a",)),
    ]
    for sql, params in queries:
        plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params))
        assert "USING" in plan and "INDEX" in plan, (sql, plan)


def test_forked_process_opens_its_own_connection(pair) -> None:
    """A worker forked after the database was opened (a preforking server) does not share the
    parent's SQLite connection: it opens its own and reads the same rules."""
    import os

    _, db = pair
    parent = db._db.conn()
    number = db.ordered_numbers(next(iter(db.editions)))[0]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report whether it got a new connection that works
        try:
            mine = db._db.conn()
            count = mine.execute("SELECT count(*) FROM rules WHERE number = ?", (number,))
            ok = mine is not parent and count.fetchone()[0] > 0
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == b"1"
    assert db._db.conn() is parent


def test_examples_for_reads_only_what_it_needs(pair) -> None:
    """On a fresh store, examples_for decodes just the examples it returns; the answer is the
    same as in memory, before and after the whole list has been read."""
    mem, db = pair
    fresh = store.open_kb(db.path)
    wanted = sorted({n for ex in mem.examples for n in ex.rules} | {"117", "117.3", "999"})
    for number in wanted:
        assert fresh.examples_for(number) == mem.examples_for(number)
    assert fresh.examples._items is None  # never read whole
    assert list(fresh.examples) == mem.examples
    for number in wanted:
        assert fresh.examples_for(number) == mem.examples_for(number)


def test_each_connection_keeps_a_small_page_cache(pair) -> None:
    """Every thread of every worker opens a connection: each caches at most PAGE_CACHE_KIB of
    pages (SQLite's default is 2 MB), and still reads every rule."""
    from kb.store.connection import PAGE_CACHE_KIB, connect

    _mem, db = pair
    conn = connect(db.path)
    assert conn.execute("PRAGMA cache_size").fetchone()[0] == -PAGE_CACHE_KIB
    assert PAGE_CACHE_KIB < 2000
    assert conn.execute("SELECT count(*) FROM rules").fetchone()[0] > 0


def _citing(examples: list, number: str) -> list:
    """The examples citing ``number`` or a rule below it, in the list's order (by a scan)."""
    from kb.text.rulenum import try_parse

    wanted = try_parse(number)
    return [
        ex
        for ex in examples
        if any(
            r == number or (wanted and (n := try_parse(r)) and wanted in n.ancestors())
            for r in ex.rules
        )
    ]


def test_examples_for_keeps_the_lists_order(pair) -> None:
    """examples_for gives the examples citing a rule or one below it in the list's order: in
    memory while built, once loaded (indexed), with the list reversed, and from the store before
    and after the whole list is read."""
    from kb.text.rulenum import try_parse

    mem, db = pair
    cited = {n for ex in mem.examples for n in ex.rules}
    above = {str(a) for n in cited if (num := try_parse(n)) for a in num.ancestors()}
    wanted = sorted(cited | above | {"999", "not a number"})
    assert any(len(_citing(mem.examples, n)) > 1 for n in wanted)  # an order to keep
    loaded = KnowledgeBase.from_json(mem.to_json())
    backwards = KnowledgeBase.from_json({**mem.to_json(), "examples": []})
    backwards.examples = list(reversed(loaded.examples))
    fresh = store.open_kb(db.path)
    for number in wanted:
        expected = _citing(mem.examples, number)
        assert mem.examples_for(number) == expected
        assert loaded.examples_for(number) == expected
        assert backwards.examples_for(number) == expected[::-1]
        assert fresh.examples_for(number) == expected
    assert list(fresh.examples) == mem.examples
    for number in wanted:
        assert fresh.examples_for(number) == _citing(mem.examples, number)
