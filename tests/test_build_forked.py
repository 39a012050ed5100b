"""Work a build hands to a second process (kb.base.forked), and the search index's pieces an
incremental build reuses: the document state (kb.search.docstate) and the Whoosh files."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from kb.base import forked
from kb.base.forked import Forked


def _pid_and(value: int) -> tuple[int, int]:
    return os.getpid(), value * 2


def _fails(message: str) -> None:
    raise ValueError(message)


@pytest.fixture
def no_other_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Other tests of the session may leave threads (a live server): these tests fork anyway."""
    monkeypatch.setattr(forked, "alone", lambda: True)


def test_the_result_comes_back_from_a_child_process(no_other_threads: None) -> None:
    pid, value = Forked(_pid_and, 21).result()
    assert value == 42
    if forked.cores() > 1 and hasattr(os, "fork"):
        assert pid != os.getpid()


def test_the_childs_exception_is_raised_by_result(
    capfd: pytest.CaptureFixture[str], no_other_threads: None
) -> None:
    job = Forked(_fails, "no such rule 999.9z") if forked.cores() > 1 else None
    if job is None:
        with pytest.raises(ValueError, match="no such rule"):
            Forked(_fails, "no such rule 999.9z")
        return
    with pytest.raises(ValueError, match=r"no such rule 999\.9z"):
        job.result()
    assert "ValueError" in capfd.readouterr().err  # the child's traceback, for the log


def test_one_core_runs_the_work_in_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "cores", lambda: 1)
    pid, value = Forked(_pid_and, 1).result()
    assert (pid, value) == (os.getpid(), 2)


def test_a_cancelled_child_is_reaped(no_other_threads: None) -> None:
    import time

    if forked.cores() < 2 or not hasattr(os, "fork"):
        pytest.skip("one core or no fork: the work runs in the caller, there is no child")

    job = Forked(time.sleep, 30)
    started = time.perf_counter()
    job.cancel()
    assert time.perf_counter() - started < 10
    job.cancel()  # twice is harmless


# ---- the index's reusable pieces --------------------------------------------------------------
def test_the_document_state_updated_by_one_edition_makes_the_same_documents(
    full_kb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state without the newest English edition, given that edition and the canonical numbers
    again, assembles the documents of the whole knowledge base."""
    from kb.search.docstate import DocState, assemble
    from kb.search.indexer import documents

    newest = full_kb.newest("en").id
    want = [(d.meta(), d.title, d.body, d.prior, d.main, d.names) for d in documents(full_kb)]
    state = DocState.of(full_kb)
    canonical = {
        ed: {n: state.texts[t][2] for n, t in zip(*column, strict=True)}
        for ed, column in state.rules.items()
    }
    del state.rules[newest], state.glossary[newest]
    # As if an older build had other canonical numbers for one edition's rules.
    some = next(ed for ed in state.rules if ed != newest and ed.startswith("en-"))
    ids = state.rules[some][1]
    for i, t in enumerate(ids):
        ids[i] = state._text_id((*state.texts[t][:2], None, *state.texts[t][3:]))
    state.add_edition(newest, full_kb.rules[newest], full_kb.glossary[newest])
    assert state.recanonicalise(canonical) > 0
    for candidate in (state, state.compact(), pickle.loads(pickle.dumps(state))):
        got = [
            (d.meta(), d.title, d.body, d.prior, d.main, d.names)
            for d in assemble(candidate, full_kb)
        ]
        assert got == want
    assert len(state.compact().texts) < len(state.texts)


def test_whoosh_files_are_copied_when_the_vocabulary_is_the_same(
    embedded_kb, tmp_path: Path
) -> None:
    from whoosh import index as whoosh_index

    from kb.search.indexer import build_index

    first, second = tmp_path / "first", tmp_path / "second"
    build_index(embedded_kb, first)
    # Another content hash: the index is built again, but today's vocabulary is the same.
    before = embedded_kb.content_hash
    embedded_kb.content_hash = "other"
    try:
        build_index(embedded_kb, second, previous=first)
    finally:
        embedded_kb.content_hash = before
    segments = sorted(p.name for p in first.iterdir() if p.suffix == ".seg")
    assert segments and segments == sorted(p.name for p in second.iterdir() if p.suffix == ".seg")
    meta = json.loads((second / "meta.json").read_text(encoding="utf-8"))
    assert meta["vocabulary"] == json.loads((first / "meta.json").read_text("utf-8"))["vocabulary"]
    ix = whoosh_index.open_dir(str(second), indexname="kb")
    assert ix.doc_count_all() == len(meta["docs"])
    ix.close()


def test_reused_whoosh_files_gain_the_new_old_texts_as_empty_documents(
    full_kb, tmp_path: Path
) -> None:
    """A text only an older edition has (not current: Whoosh keeps nothing of it) adds an empty
    document to the copied files; the vocabulary and counts are those of a fresh index."""
    from array import array

    from whoosh import index as whoosh_index

    from kb.search.docstate import DocState
    from kb.search.indexer import build_index

    first, second, fresh = tmp_path / "first", tmp_path / "second", tmp_path / "fresh"
    state = DocState.of(full_kb)
    build_index(full_kb, first, state=state)
    oldest = min(
        (e for e in full_kb.editions.values() if e.lang == "en" and e.kind == "full"),
        key=lambda e: e.date,
    )
    numbers, ids = state.rules[oldest.id]
    text = state.texts[ids[0]]
    state.rules[oldest.id] = (
        [*numbers, "999.9z"],
        array("l", [*ids, state._text_id(("en", "999.9z", None, None, "gone since", *text[5:]))]),
    )
    before = full_kb.content_hash
    full_kb.content_hash = "other"
    try:
        build_index(full_kb, second, previous=first, state=state)
        build_index(full_kb, fresh, state=state)
    finally:
        full_kb.content_hash = before

    def vocabulary(folder: Path) -> tuple[int, dict]:
        ix = whoosh_index.open_dir(str(folder), indexname="kb")
        with ix.reader() as reader:
            found = (
                reader.doc_count_all(),
                {
                    name: [(t, i.doc_frequency()) for t, i in reader.iter_field(name)]
                    for name in sorted(reader.indexed_field_names())
                },
            )
        ix.close()
        return found

    copied = {p.name for p in first.iterdir() if p.suffix == ".seg"}
    assert copied <= {p.name for p in second.iterdir() if p.suffix == ".seg"}
    assert vocabulary(second) == vocabulary(fresh)
    assert vocabulary(second)[0] == vocabulary(first)[0] + 1


def test_a_caller_with_other_threads_runs_the_work_itself() -> None:
    # A fork copies only the calling thread: a lock another thread holds stays held in the child.
    import threading

    release = threading.Event()
    other = threading.Thread(target=release.wait, daemon=True)
    other.start()
    try:
        pid, value = Forked(_pid_and, 1).result()
    finally:
        release.set()
        other.join()
    assert (pid, value) == (os.getpid(), 2)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_a_child_ends_when_its_build_is_killed(tmp_path: Path) -> None:
    """kill -9 of a build must not leave its child running (holding the instance's lock)."""
    import signal
    import subprocess
    import sys
    import time

    if forked.cores() < 2 or not hasattr(os, "fork"):
        pytest.skip("no second core: nothing is forked")
    script = (
        "import sys, time\n"
        "from kb.base.forked import Forked\n"
        "child = Forked(time.sleep, 60)\n"
        "print(child._pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        assert _alive(child)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    """Running (a zombie left to an init that does not reap counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]
