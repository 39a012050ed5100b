"""The corpus paths an instance remembers (``corpus.json``), and ``kb build --forget PATH``:
stop reading a corpus path an earlier ``--corpus`` added.

An instance remembers every path added to it (``corpus.json``), so a file that cannot be read
keeps ``kb build`` exiting 3, and a path moved or deleted since stops the build: forgetting it is
the way out. Only a remembered path itself can be forgotten (a file inside a remembered folder is
read with its folder: remove it there, or forget the folder); the build that follows writes the
list without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kb.base.instance import BuildError

__all__ = ["without"]


def without(remembered: list[Path], forget: Iterable[Path | str]) -> list[Path]:
    """``remembered`` without the paths to forget; :class:`~kb.base.instance.BuildError` naming a path
    that is not remembered (and the remembered folder holding it, if one does)."""
    kept = list(remembered)
    for path in forget:
        wanted = Path(path).expanduser().absolute()
        resolved = wanted.resolve() if wanted.exists() else wanted
        match = next((p for p in kept if p in (wanted, resolved)), None)
        if match is not None:
            kept.remove(match)
            continue
        holder = next((p for p in kept if p in resolved.parents), None)
        if holder is not None:
            raise BuildError(
                f"{path}: read as part of the remembered folder {holder}; remove the file "
                f"there, or forget the folder (--forget {holder})"
            )
        listed = ", ".join(str(p) for p in remembered) or "none"
        raise BuildError(f"{path}: not a remembered corpus path (remembered: {listed})")
    return kept
