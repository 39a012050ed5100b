"""The snippets' offsets (``spans.bin``) are tied to the index that wrote them by a digest of its
head, not by a document count: offsets of another build are never read against these postings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kb.search.indexer import HEAD_FILE
from kb.search.snippets import FILE, SnippetSpans


def _opened(index_dir: Path) -> SnippetSpans:
    meta = json.loads((index_dir / "meta.json").read_text(encoding="utf-8"))
    return SnippetSpans(index_dir, lambda _name, _doc: None, meta["current"])


def test_spans_are_read_with_the_index_that_wrote_them(embedded_instance: Path) -> None:
    index = embedded_instance / "current" / "index"
    assert (index / FILE).is_file()
    assert _opened(index)._rows, "the build's own offsets are used"


def test_spans_of_another_build_with_as_many_documents_are_not_used(
    embedded_instance: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    shutil.copytree(embedded_instance / "current" / "index", index)
    head = json.loads((index / HEAD_FILE).read_text(encoding="utf-8"))
    # Same documents, same count: only the build differs (another content hash).
    head["content_hash"] = "0" * 64
    (index / HEAD_FILE).write_text(json.dumps(head), encoding="utf-8")
    assert not _opened(index)._rows
    (index / HEAD_FILE).unlink()  # no head at all: nothing to tie the offsets to
    assert not _opened(index)._rows
