"""Which reader reads which file: the corpus manifest, format sniffing and dispatch.

The build calls :func:`read_source` for every file: the format comes from the file's entry in
``corpus/manifest.toml`` or, for a file added on the command line, from :func:`sniff`, which
recognises each known format by its own marks. A file nothing recognises is an error naming the
file, never a guess. The manifest also states what the text does not (numbering, MTR section).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kb.sources import cr_translated, mtr, seed_en_wiki, seed_fr_wiki, seed_ja_wiki, seed_site
from kb.sources.records import Problem, SourceDoc, SourceError

Reader = Callable[[Path, str], list[SourceDoc]]

MANIFEST = "manifest.toml"
LANGS = ("en", "fr", "ja")
#: Keys of a manifest entry that fill a document's fields where the text does not say.
FILLED_FIELDS = ("date", "numbering", "version", "translates", "title")


def _read_cr(path: Path, text: str) -> list[SourceDoc]:
    from kb.sources.cr_text import read_cr_text

    return [read_cr_text(path, text)]


#: Format name -> reader(path, decoded text).
FORMATS: dict[str, Reader] = {
    "cr": _read_cr,
    cr_translated.FORMAT: cr_translated.read,
    "fr-wiki": seed_fr_wiki.read,
    "en-wiki": seed_en_wiki.read,
    "ja-mtgwiki": seed_ja_wiki.read,
    "bilingual-site": seed_site.read,
    "mtr-bullets": mtr.read_bullets,
    "mtr-en": mtr.read_mtr_en,
}


def _looks_like_cr(text: str) -> bool:
    from kb.sources.cr_text import looks_like_cr_text

    return looks_like_cr_text(text)


#: Sniffers in the order they are tried: the most specific marks first (a translation published
#: one paragraph a line also has the headings the official layout's sniffer looks for).
SNIFFERS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    (cr_translated.FORMAT, cr_translated.looks_like),
    ("cr", _looks_like_cr),
    ("fr-wiki", seed_fr_wiki.looks_like),
    ("ja-mtgwiki", seed_ja_wiki.looks_like),
    ("bilingual-site", seed_site.looks_like),
    ("mtr-en", mtr.looks_like_mtr_en),
    ("en-wiki", seed_en_wiki.looks_like),
    ("mtr-bullets", mtr.looks_like_bullets),
)


def sniff(path: Path, text: str) -> str | None:
    """The format of a decoded text, from its own marks (the path is not used), or None."""
    del path  # a file's name says nothing reliable about its content
    for name, test in SNIFFERS:
        if test(text):
            return name
    return None


def read_source(path: Path, entry: dict[str, Any] | None = None) -> list[SourceDoc]:
    """Decode a file and read it with the reader of its manifest format, or of its sniffed one.

    Raises :class:`SourceError` (file, why, line) when the file is empty, binary or of no known
    format. Manifest values fill what the text does not say; where both say, the text wins and
    a disagreement is reported as a warning on the document.
    """
    from kb.sources.decode import read_text

    path = Path(path)
    name = str(path)
    text = read_text(path)
    fmt = (entry or {}).get("format")
    if fmt is not None:
        if fmt not in FORMATS:
            raise SourceError(
                name, f"manifest format {fmt!r} is not one of {', '.join(sorted(FORMATS))}"
            )
    else:
        fmt = sniff(path, text)
        if fmt is None:
            first = next((i for i, x in enumerate(text.split("\n"), 1) if x.strip()), 1)
            raise SourceError(
                name,
                "unknown format: not an official Comprehensive Rules text, nor a known wiki, "
                "site or tournament rules page, so it was not added",
                first,
            )
    docs = FORMATS[fmt](path, text)
    if entry:
        for doc in docs:
            _apply_entry(doc, entry)
    return docs


def _apply_entry(doc: SourceDoc, entry: dict[str, Any]) -> None:
    """Fill a document from its manifest entry (a ``parts.<part>`` table overrides per part)."""
    values = dict(entry)
    parts = entry.get("parts", {})
    if doc.part and isinstance(parts, dict) and isinstance(parts.get(doc.part), dict):
        values.update(parts[doc.part])
    for key in FILLED_FIELDS:
        wanted = values.get(key)
        if wanted is None:
            continue
        have = getattr(doc, key)
        if have is None:
            setattr(doc, key, str(wanted))
        elif str(have) != str(wanted) and key != "title":
            doc.problems.append(
                Problem(doc.path, None, f"manifest says {key} = {wanted!r}, the text {have!r}")
            )
    langs = values.get("langs")
    if isinstance(langs, list) and doc.lang not in langs:
        doc.problems.append(
            Problem(doc.path, None, f"language {doc.lang!r} not among the manifest's {langs}")
        )
    section = values.get("section")
    if section and doc.kind == "mtr" and doc.format == mtr.BULLETS_FORMAT:
        mtr.set_section(doc, str(section))


def load_manifest(corpus_dir: Path) -> dict[str, dict[str, Any]]:
    """File name (under ``corpus_dir/sources``) -> its manifest entry; {} without a manifest.

    A broken TOML or an entry missing its format or languages raises :class:`SourceError` naming
    the manifest and the line.
    """
    path = Path(corpus_dir) / MANIFEST
    if not path.is_file():
        return {}
    raw = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(str(path), f"not valid TOML: {exc}", toml_error_line(exc, raw)) from None
    out: dict[str, dict[str, Any]] = {}
    sources = Path(corpus_dir) / "sources"
    for name, entry in data.items():
        line = _table_line(raw, name)
        if not isinstance(entry, dict):
            raise SourceError(str(path), f"{name!r} must be a table ([{name!r}])", line)
        fmt = entry.get("format")
        if fmt not in FORMATS:
            raise SourceError(
                str(path),
                f"[{name}]: format {fmt!r} is not one of {', '.join(sorted(FORMATS))}",
                line,
            )
        langs = entry.get("langs")
        if not isinstance(langs, list) or not langs or any(x not in LANGS for x in langs):
            raise SourceError(
                str(path), f"[{name}]: langs must be a list drawn from {list(LANGS)}", line
            )
        if sources.is_dir() and not (sources / name).is_file():
            raise SourceError(str(path), f"[{name}]: no such file in {sources}", line)
        out[name] = entry
    return out


def toml_error_line(exc: tomllib.TOMLDecodeError, raw: str) -> int | None:
    """The line a TOML error points at ("at line 3", or the last line "at end of document")."""
    found = re.search(r"at line (\d+)", str(exc))
    if found:
        return int(found[1])
    if "end of document" in str(exc):
        return raw.count("\n") + (0 if raw.endswith("\n") else 1) or 1
    return None


def _table_line(raw: str, name: str) -> int | None:
    """The line of ``["name"]`` in the manifest, for error messages."""
    pattern = re.compile(r'^\s*\[\s*["\']?' + re.escape(name) + r'["\']?\s*\]')
    for number, line in enumerate(raw.split("\n"), 1):
        if pattern.match(line):
            return number
    return None


def iter_corpus_files(path: Path) -> list[Path]:
    """A file as given, or the ``.txt`` files of a folder and its subfolders, sorted by their path
    inside it (hidden files and folders skipped, symbolic links to folders not followed).

    A folder with no ``.txt`` file raises :class:`SourceError` naming it: a ``--corpus`` that adds
    nothing is a mistake to report, not a build to run (and remember).
    """
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise SourceError(str(path), "no such file or folder")
    found: list[tuple[tuple[str, ...], Path]] = []
    others = 0
    for folder, dirs, files in os.walk(path, onerror=None, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(folder)
        rel = here.relative_to(path).parts
        for name in files:
            if name.startswith("."):
                continue
            full = here / name
            if name.lower().endswith(".txt") and full.is_file():
                found.append(((*rel, name), full))
            else:
                others += 1
    if not found:
        seen = (
            f" ({others} other file{'s' * (others != 1)}, not .txt)" if others else " (it is empty)"
        )
        raise SourceError(
            str(path),
            f"no .txt rule texts in this folder or its subfolders{seen}: nothing to add "
            "(corpus path not added)",
        )
    return [p for _, p in sorted(found)]


def duplicate_edition(ed_id: str, kept: str, doc: SourceDoc) -> Problem:
    """The warning for a second file giving an edition already read from ``kept``: whether the
    two texts are the same (a copy) or differ, and which one was kept (the one read first).

    The texts are compared as the readers see them (decoded, line endings and trailing spaces
    normalised), so a re-encoded copy of a file is still a copy.
    """
    from kb.sources.decode import read_text

    def text(path: str) -> str | None:
        try:
            return "\n".join(line.rstrip() for line in read_text(Path(path)).strip().split("\n"))
        except (OSError, SourceError):
            return None

    first, second = text(kept), text(doc.path)
    if first is not None and first == second:
        message = f"edition {ed_id} is already read from {kept}; this file is a copy of it, ignored"
    elif first is None or second is None:
        message = (
            f"edition {ed_id} is also given by this file; kept {kept} (read first), this one "
            "ignored (the two could not be compared)"
        )
    else:
        where = _first_difference(first, second)
        message = (
            f"edition {ed_id} is also given by this file, but the texts differ (first at line "
            f"{where}); kept {kept} (read first), this one ignored: remove the file you do "
            "not want, or fix its date"
        )
    return Problem(doc.path, None, message)


def _first_difference(a: str, b: str) -> int:
    """The first line (1-based) where two texts differ."""
    for number, (x, y) in enumerate(zip(a.split("\n"), b.split("\n"), strict=False), 1):
        if x != y:
            return number
    return min(a.count("\n"), b.count("\n")) + 2
