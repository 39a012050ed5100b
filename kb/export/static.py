"""The static side of ``kb export``: which file serves a URL, writing only files that changed,
the export's manifest (what an earlier export wrote), and the Pagefind search bundle.

See :mod:`kb.export.runner` for why pages are folders with an ``index.html``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any

MANIFEST = ".kb-export.json"
#: Parts of a page that Pagefind does not index: all but the rule's (or entry's) own words. The
#: history's word diffs would read "bothall teams"; translations, terms, previews, references
#: and the engine's examples are other pages' words.
PAGEFIND_EXCLUDE = (
    "header.site, footer.site, nav, script, button, details.script, .history, .notices, .meta, "
    ".translations, "
    ".terms, .previews, .examples, .prevnext, .crumbs, section[aria-labelledby=h-terms], "
    "section[aria-labelledby=h-refs], "
    "section[aria-labelledby=h-back]"
)


class ExportError(Exception):
    """An export that cannot be made: one line naming what is wrong."""


# ---- URL <-> file ---------------------------------------------------------------------------
def file_for(url_path: str) -> str:
    """The file (relative to the export) that serves a URL path; see the module docstring."""
    path = urllib.parse.unquote(url_path)
    parts = [p for p in path.split("/") if p]
    if any(p in (".", "..") or "\\" in p or "\x00" in p for p in parts):
        raise ExportError(f"{url_path}: not a path a static host can serve")
    if path.endswith("/") or not parts:
        return "/".join([*parts, "index.html"])
    if re.search(r"\.(json|xml|txt|css|js)$", parts[-1]):
        return "/".join(parts)
    return "/".join([*parts, "index.html"])


def json_twin(url_path: str) -> str:
    """The JSON twin of a page's URL (``/en/`` -> ``/en/index.json``, as the app names them)."""
    if url_path.count("/") == 2 and url_path.endswith("/"):
        return url_path + "index.json"
    if url_path.endswith("/"):
        return url_path[:-1] + ".json"
    return url_path + ".json"


# ---- writing --------------------------------------------------------------------------------
class Writer:
    """Writes files that changed only (atomically), and remembers every file it was given."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.files: dict[str, int] = {}
        self.written = 0
        self.unchanged = 0
        self.changed: list[str] = []

    def put(self, rel: str, data: bytes) -> None:
        path = self.out / rel
        self.files[rel] = len(data)
        try:
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                self.unchanged += 1
                return
        except (FileNotFoundError, NotADirectoryError):
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        self.written += 1
        self.changed.append(rel)


# ---- search (Pagefind) -----------------------------------------------------------------------
def pagefind_binary() -> Path | None:
    """The Pagefind executable of the ``pagefind[extended]`` package (None when not installed)."""
    try:
        from pagefind_bin_extended import get_executable  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:
        return Path(get_executable())
    except FileNotFoundError:
        return None


def build_search(out: Path, writer: Writer, pages: list[str]) -> str:
    """Index ``pages`` (files of the export) with Pagefind, then copy its bundle in (changed
    files only).

    Pagefind's command line indexes a folder: the pages to index are hard links (or copies)
    in a folder of their own beside the export's, where their paths, hence URLs, are the same.
    """
    binary = pagefind_binary()
    if binary is None:
        return "not built (install pagefind[extended])"
    with tempfile.TemporaryDirectory(prefix=".kb-pagefind-", dir=out) as tmp:
        site, bundle = Path(tmp) / "site", Path(tmp) / "pagefind"
        for rel in pages:
            target = site / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(out / rel, target)
            except OSError:
                shutil.copyfile(out / rel, target)
        command = [
            str(binary),
            "--site",
            str(site),
            "--output-path",
            str(bundle),
            "--root-selector",
            "main",
            "--exclude-selectors",
            PAGEFIND_EXCLUDE,
            "--include-characters",
            ".",
            "--silent",
        ]
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            detail = (run.stderr or run.stdout).strip().splitlines()
            raise ExportError(f"pagefind failed: {detail[-1] if detail else run.returncode}")
        for path in sorted(bundle.rglob("*")):
            if not path.is_file():
                continue
            data = path.read_bytes()
            if path.name == "pagefind-entry.json":
                # Pagefind lists the languages in no fixed order: sort them, or every export
                # would rewrite this file.
                entry = json.loads(data)
                data = json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                data = data.encode()
            writer.put("pagefind/" + path.relative_to(bundle).as_posix(), data)
    return "built"


# ---- manifest --------------------------------------------------------------------------------
def read_manifest(out: Path) -> dict[str, Any]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else {}
    except (OSError, ValueError):
        return {}


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    data = json.dumps(manifest, indent=0, ensure_ascii=False).encode()
    path = out / MANIFEST
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def file_stamps(out: Path, files: dict[str, int]) -> dict[str, int]:
    stamps = {}
    for rel in files:
        with contextlib.suppress(OSError):
            stamps[rel] = (out / rel).stat().st_mtime_ns
    return stamps


def is_unchanged(out: Path, previous: dict[str, Any], seed: str, base: str, search: bool) -> bool:
    """True when the last export came from the same build and code and its files are intact."""
    if not previous or previous.get("partial"):
        return False
    if previous.get("seed") != seed or previous.get("base_url") != base:
        return False
    if search != (previous.get("search") == "built"):
        return False
    stamps = previous.get("stamps", {})
    for rel, size in previous["files"].items():
        try:
            stat = (out / rel).stat()
        except OSError:
            return False
        if stat.st_size != size or stat.st_mtime_ns != stamps.get(rel):
            return False
    return True
