"""What an instance remembers of the inputs a user added: the rule texts of ``kb build --corpus``
(``corpus.json``'s ``paths``), checked when they are added and read back by every later build.

Split from :mod:`kb.build` (which re-exports these) to keep that module to the build's steps.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

from kb.base.instance import BuildError

CORPUS_FILE = "corpus.json"


def remembered_paths(instance: Path) -> list[Path]:
    """The corpus paths added to this instance by earlier ``kb build --corpus`` runs."""
    path = instance / CORPUS_FILE
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BuildError(f"{path}: unreadable list of added corpus paths ({exc})") from exc
    return [Path(p) for p in data.get("paths", [])]


def check_corpus_path(path: Path) -> Path:
    """A path given to ``--corpus``, resolved; :class:`BuildError` naming what is wrong with it."""
    path = Path(path).expanduser()
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise BuildError(f"{path}: no such file or folder (corpus path not added)") from None
    except OSError as exc:
        raise BuildError(f"{path}: cannot read: {exc.strerror} (corpus path not added)") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = (
            "a named pipe (FIFO)"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        raise BuildError(
            f"{path}: is {kind}, not a file or folder of rule texts (corpus path not added)"
        )
    return path.resolve()
