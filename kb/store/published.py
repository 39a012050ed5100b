"""Opening an instance's published build: the one function every reader (the pages, ``kb rule``,
``kb search``, the updater) calls to get the knowledge base (:func:`load`).

It sits in the store because it opens the store's database; :mod:`kb.base.instance` knows only the
folders and the pointer.
"""

from __future__ import annotations

from pathlib import Path

from kb.base.instance import BuildError, current_build
from kb.knowledge.model import KnowledgeBase
from kb.store.reader import open_kb
from kb.store.schema import DB_FILE, StoreError


def load(instance: Path) -> KnowledgeBase:
    """The built knowledge base of an instance, opened read-only (rules are read on demand);
    :class:`BuildError` if there is none. Also ``kb.build.load``.

    The published build is resolved once: the object keeps reading that build even after a newer
    one is published (its ``build_dir`` says which).
    """
    instance = Path(instance)
    folder = current_build(instance)
    if folder is None and (instance / DB_FILE).is_file():
        folder = instance  # a build folder given directly
    if folder is None:
        legacy = instance / "kb.json"
        if legacy.is_file():  # a knowledge base saved whole (KnowledgeBase.save), loaded whole
            try:
                return KnowledgeBase.load(legacy)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise BuildError(f"{legacy}: unreadable knowledge base ({exc})") from exc
        raise BuildError(f"{instance}: no knowledge base built here yet (run `kb build`)")
    path = folder / DB_FILE
    try:
        return open_kb(path)
    except (StoreError, OSError) as exc:
        raise BuildError(
            f"{path}: unreadable knowledge base ({exc}); rebuild with `kb build --force`"
        ) from exc
