"""Bytes to text for published rule files, whatever encoding and line endings they came in.

The official texts have shipped as UTF-8 with and without a BOM, windows-1252 and UTF-16 with a
BOM, with CRLF, LF or bare CR line endings (sometimes mixed in one file). Readers want one shape:
a ``str`` with ``"\\n"`` line breaks and plain spaces, or a :class:`SourceError` naming the file.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from kb.sources.records import SourceError
from kb.text import normalize_newlines

__all__ = ["decode_bytes", "normalize_text", "read_text"]

_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)

# Control characters that text files do not contain (tab, line and page breaks are not counted).
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")

# A text file has (almost) no other control characters; a binary one decoded as windows-1252 has
# roughly one in eight. One in ten separates the two with room on both sides.
_MAX_CONTROL_SHARE = 0.10


def _latin1_fallback(error: UnicodeError) -> tuple[str, int]:
    # windows-1252 leaves five bytes undefined; keep them visible as their Latin-1 code points
    # rather than failing a whole file over one stray byte.
    assert isinstance(error, UnicodeDecodeError)
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error("kb-latin1", _latin1_fallback)


#: Line breaks to "\n", NBSP to a space (:func:`kb.text.normalize_newlines`), under the name the
#: readers import.
normalize_text = normalize_newlines


def _decode(data: bytes, path: str) -> str:
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(codec)
            except UnicodeDecodeError as exc:
                raise SourceError(
                    path, f"starts with a {label} byte-order mark but is not valid {label}: {exc}"
                ) from None
    if b"\x00" in data:
        raise SourceError(path, "binary file (NUL bytes and no UTF-16 byte-order mark)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="kb-latin1")


def decode_bytes(data: bytes, path: str) -> str:
    """Decode a text file as published: UTF-8 with/without BOM, UTF-16 LE/BE with BOM, windows-1252
    fallback; normalise CRLF / bare CR / U+2028 / U+2029 to "\\n"; NBSP -> space; raise
    SourceError(path, message) for an empty file or a binary file (NUL bytes without a UTF-16 BOM,
    or mostly control characters)."""
    if not data:
        raise SourceError(path, "empty file (0 bytes)")
    text = _decode(data, path)
    if not text.strip():
        raise SourceError(path, "empty file (only a byte-order mark or whitespace)")
    controls = len(_CONTROLS.findall(text))
    if controls > _MAX_CONTROL_SHARE * len(text):
        raise SourceError(
            path, f"binary file ({controls} control characters in {len(text)} characters)"
        )
    return normalize_text(text)


def read_text(path: Path) -> str:
    """Read a file's bytes and decode them with :func:`decode_bytes`; unreadable files raise
    SourceError too, so callers handle one exception."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SourceError(str(path), f"cannot read file: {exc.strerror or exc}") from None
    return decode_bytes(data, str(path))
