"""Bytes to text for published rule files, whatever encoding and line endings they came in.

The official texts have shipped as UTF-8 with and without a BOM, windows-1252 and UTF-16 with a
BOM (UTF-16 without one is read too), with CRLF, LF or bare CR line endings (sometimes mixed in one
file). Readers want one shape: a ``str`` with ``"\\n"`` line breaks and plain spaces, or a :class:`SourceError` naming the file.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from kb.sources.records import SourceError
from kb.text.normal import normalize_newlines

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


#: Line breaks to "\n", NBSP to a space (:func:`kb.text.normal.normalize_newlines`), under the name the
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
        text = _utf16_without_bom(data)
        if text is None:
            raise SourceError(
                path,
                "binary file (NUL bytes, and not UTF-16 text with or without a byte-order mark)",
            )
        return text
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _check_damaged_utf8(data, exc, path)
        return data.decode("cp1252", errors="kb-latin1")


#: UTF-8 text (kana, kanji: characters of three bytes) with at most one bad sequence in this
#: many good ones is damaged UTF-8, not windows-1252 (whose bytes seldom form such sequences).
_DAMAGED_UTF8_RATIO = 20
_MIN_WIDE = 20


def _check_damaged_utf8(data: bytes, exc: UnicodeDecodeError, path: str) -> None:
    """Raise :class:`SourceError` naming the line of the first bad bytes when ``data`` is UTF-8
    text with a few bytes corrupted or cut off (a truncated Japanese file read as windows-1252
    would be mojibake, not text)."""
    text = data.decode("utf-8", errors="replace")
    wide = sum(1 for ch in text if "\u0800" <= ch != "\ufffd")
    bad = text.count("\ufffd")
    if wide < _MIN_WIDE or bad * _DAMAGED_UTF8_RATIO > wide:
        return
    line = normalize_text(data[: exc.start].decode("utf-8", errors="replace")).count("\n") + 1
    if exc.end >= len(data) and "end of data" in exc.reason:
        why = "the file ends inside a character: it is truncated"
    else:
        why = f"bytes {data[exc.start : exc.end].hex(' ')} are no UTF-8 character: it is damaged"
    raise SourceError(path, f"UTF-8 text with {bad} bad byte sequence(s); {why}", line)


# What a text file's characters are: ASCII, Latin, general punctuation, kana and CJK ideographs,
# full-width forms. Random bytes read as UTF-16 land mostly elsewhere (Hangul, private use, ...).
_TEXT_CHARS = re.compile(
    r"[\t\n\r\x20-\x7e\xa0-\u024f\u2000-\u206f\u2100-\u21ff\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]"
)
_MIN_TEXT_SHARE = 0.95


def _utf16_without_bom(data: bytes) -> str | None:
    """Text of UTF-16 bytes written without a byte-order mark, or None when they are not.

    The byte order is the one whose high bytes are zero more often (ASCII digits, spaces and line
    breaks are plentiful in any rules text, even a Japanese one); the result must decode strictly
    and read as text, so a binary file is not taken for UTF-16.
    """
    if len(data) % 2:
        return None
    even_zeros, odd_zeros = data[0::2].count(0), data[1::2].count(0)
    codec = "utf-16-le" if odd_zeros > even_zeros else "utf-16-be"
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    if len(_TEXT_CHARS.findall(text)) < _MIN_TEXT_SHARE * len(text):
        return None
    return text


def decode_bytes(data: bytes, path: str) -> str:
    """Decode a text file as published: UTF-8 with/without BOM, UTF-16 LE/BE with or without BOM,
    windows-1252 fallback; normalise CRLF / bare CR / U+2028 / U+2029 to "\\n"; NBSP -> space; raise
    SourceError(path, message) for an empty file or a binary file (NUL bytes that are not UTF-16
    text, or mostly control characters)."""
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
