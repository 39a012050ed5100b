"""Compare two builds of the same inputs (say before and after a change to the build):
every table of ``kb.sqlite`` (its rows in order; meta's content hash aside), and the index:
``meta.json`` (content hash aside), the postings' rows, the snippets' offsets and Whoosh's words.

Run: ``python tests/bench/compare_builds.py INSTANCE_A INSTANCE_B`` (exit status 1 on a
difference). Build both from the same corpus folder: the paths of the inputs are stored.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import sqlite3
import sys
from pathlib import Path


def tables(db: Path) -> dict[str, tuple[int, str]]:
    """Each table of a database: its row count and a digest of its rows."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = {}
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ):
        if name == "meta":
            rows = [
                r for r in conn.execute("SELECT * FROM meta ORDER BY key") if r[0] != "content_hash"
            ]
        else:
            rows = sorted(conn.execute(f"SELECT * FROM {name}"), key=repr)
        h = hashlib.sha256(repr(rows).encode()).hexdigest()[:16]
        out[name] = (len(rows), h)
    idx = sorted(r for r in conn.execute("SELECT name, sql FROM sqlite_master WHERE type='index'"))
    out["<indexes>"] = (len(idx), hashlib.sha256(repr(idx).encode()).hexdigest()[:16])
    return out


def index(d: Path) -> dict[str, object]:
    """What the searcher reads of an index folder, as digests."""
    out = {}
    meta = json.loads((d / "meta.json").read_text())
    meta.pop("content_hash")
    out["meta.json"] = hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:16]
    out["ndocs"] = len(meta["docs"])
    data = marshal.loads((d / "spans.bin").read_bytes())
    out["spans"] = hashlib.sha256(repr((data[-2], sorted(data[-1].items()))).encode()).hexdigest()[
        :16
    ]
    out["postings"] = tables(d / "postings.sqlite")
    from whoosh import index as wi

    ix = wi.open_dir(str(d), indexname="kb")
    with ix.reader() as r:
        words = sorted((f, t) for f, t in r.all_terms())
        out["whoosh"] = (
            r.doc_count_all(),
            len(words),
            hashlib.sha256(repr(words).encode()).hexdigest()[:16],
        )
    return out


def main() -> int:
    """Print every part of both builds, same or DIFF; 1 when anything differs."""
    a, b = Path(sys.argv[1]) / "current", Path(sys.argv[2]) / "current"
    ta, tb = tables(a / "kb.sqlite"), tables(b / "kb.sqlite")
    bad = 0
    for k in sorted(set(ta) | set(tb)):
        same = ta.get(k) == tb.get(k)
        bad += not same
        print(f"{'same' if same else 'DIFF'}  {k:<20} {ta.get(k)}  {tb.get(k)}")
    ia, ib = index(a / "index"), index(b / "index")
    for k in ia:
        same = ia[k] == ib[k]
        bad += not same
        print(f"{'same' if same else 'DIFF'}  index {k}: {ia[k] if same else (ia[k], ib[k])}")
    print("differences:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
