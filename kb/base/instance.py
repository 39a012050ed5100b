"""The instance folder: versioned builds behind an atomically replaced pointer, and a build lock.

Layout::

    instance/
      builds/<stamp>-<hash>/   one complete build: kb.sqlite, index/, build.json, corpus.json
      current -> builds/...    the published build (a symlink, replaced with one rename)
      kb.sqlite, index, build.json, corpus.json -> current/...   stable names for tools
      cache/                   what incremental builds reuse (parsed and linked editions ...)
      .build.lock              held (flock) by the one build running

Why a pointer rather than renaming the instance folder: a running server keeps reading the build
it opened while a new one is published, notices the new pointer on its next request and reopens;
a request in flight finishes on the files it started with, because old builds stay on disk until a
later build removes them (the current one and the one before are always kept).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

BUILDS_DIR = "builds"
CURRENT = "current"
CACHE_DIR = "cache"
LOCK_FILE = ".build.lock"
STAGING_PREFIX = ".staging-"
#: The artefacts every build folder holds, linked from the instance under the same names.
ARTEFACTS = ("kb.sqlite", "index", "build.json", "corpus.json")
#: Files and folders of the layout before versioned builds (removed when a build migrates).
LEGACY = ("kb.json",)


class BuildError(Exception):
    """A build that cannot be made or read; the message names the file (and line) at fault."""


class InstanceBusy(Exception):
    """Another build of the same instance holds the lock."""


def current_build(instance: Path) -> Path | None:
    """The folder of the published build (None when nothing is built yet)."""
    instance = Path(instance)
    try:
        target = os.readlink(instance / CURRENT)
    except OSError:
        return None
    folder = instance / target
    return folder if folder.is_dir() else None


def build_id(instance: Path) -> str | None:
    """The pointer's target as a string: cheap to compare per request (one ``readlink``)."""
    return pointer_target(Path(instance) / CURRENT)


def pointer_target(pointer: Path | str) -> str | None:
    """What the build pointer ``pointer`` (the instance's :data:`CURRENT`, a path a server makes
    once) names, None without one: :func:`build_id` without joining the path again."""
    try:
        return os.readlink(pointer)
    except OSError:
        return None


#: The lock files' descriptors this process holds: a forked child closes its copies (see
#: :func:`_forget_locks`), so that the lock is the build's alone.
_HELD: set[int] = set()


def _forget_locks() -> None:
    """In a forked child: close the inherited lock descriptors (the parent keeps the lock; a
    child still holding it would keep a killed build's instance locked)."""
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)


@contextlib.contextmanager
def lock(instance: Path) -> Iterator[None]:
    """Hold the instance's build lock; :class:`InstanceBusy` if another build holds it.

    ``flock`` is released by the kernel when its holder dies, so a killed build never leaves a
    stale lock behind (a forked child does not hold it: it closes its copy at once).
    """
    instance = Path(instance)
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise InstanceBusy(
                f"{instance}: another build is running (pid {holder}); "
                "wait for it to finish, then build again"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        _HELD.add(fd)
        yield
    finally:
        _HELD.discard(fd)
        os.close(fd)


def new_staging(instance: Path) -> Path:
    """A fresh folder to build into (inside ``builds/``, so publishing it is a rename)."""
    builds = Path(instance) / BUILDS_DIR
    builds.mkdir(parents=True, exist_ok=True)
    staging = builds / f"{STAGING_PREFIX}{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    return staging


def clean_stale(instance: Path) -> list[Path]:
    """Remove what killed builds left behind; call with the lock held. Returns what was removed.

    Under the lock no other build of this instance runs, so every staging folder is stale; the
    sibling ``.<name>.building-<pid>`` and ``.<name>.old-<pid>`` folders of the earlier layout
    are removed when their process is gone.
    """
    instance = Path(instance)
    removed: list[Path] = []
    builds = instance / BUILDS_DIR
    if builds.is_dir():
        for path in builds.iterdir():
            if path.name.startswith(STAGING_PREFIX):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    if instance.parent.is_dir():
        for prefix in (f".{instance.name}.building-", f".{instance.name}.old-"):
            for path in instance.parent.glob(prefix + "*"):
                pid = path.name[len(prefix) :]
                if not pid.isdigit() or not _alive(int(pid)):
                    shutil.rmtree(path, ignore_errors=True)
                    removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def publish(instance: Path, staging: Path, digest: str) -> Path:
    """Rename the staging folder into ``builds/``, point ``current`` at it, drop old builds.

    The pointer is replaced with ``rename`` of a new symlink over the old one: atomic, so a reader
    sees the old build or the new one, never neither.
    """
    instance = Path(instance)
    builds = instance / BUILDS_DIR
    name = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{time.time_ns() % 10**9:09d}-{digest[:12]}"
    final = builds / name
    _sync_tree(staging)  # on disk before anything points at it: a crash leaves whole builds
    staging.rename(final)
    previous = build_id(instance)
    pointer = instance / CURRENT
    if pointer.is_dir() and not pointer.is_symlink():
        shutil.rmtree(pointer)  # a copy of an instance made without keeping its links
    _replace_link(pointer, f"{BUILDS_DIR}/{name}")
    for artefact in ARTEFACTS:
        link = instance / artefact
        if link.is_symlink():
            continue
        if link.is_dir():
            shutil.rmtree(link)
        elif link.exists():
            link.unlink()
        _replace_link(link, f"{CURRENT}/{artefact}")
    for legacy in LEGACY:
        path = instance / legacy
        if path.exists() and not path.is_symlink():
            path.unlink()
    keep = {name, Path(previous).name if previous else ""}
    for old in builds.iterdir():
        if old.name not in keep and not old.name.startswith(STAGING_PREFIX):
            shutil.rmtree(old, ignore_errors=True)
    return final


def _sync_tree(folder: Path) -> None:
    """Flush every file of ``folder``, then its folders and itself, to disk (the database and
    index are written without SQLite's syncs, for speed; publishing is where they must be
    durable)."""
    paths = [p for p in sorted(folder.rglob("*")) if not p.is_symlink()]
    for path in paths:
        if path.is_file():
            _fsync(path)
    for path in [*(p for p in paths if p.is_dir()), folder]:
        with contextlib.suppress(OSError):  # some file systems cannot sync a folder
            _fsync(path)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _replace_link(link: Path, target: str) -> None:
    tmp = link.with_name(f".{link.name}.tmp-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    os.symlink(target, tmp)
    os.replace(tmp, link)
