"""Reader of card files: MTGJSON AtomicCards (schema v5) and Scryfall's "Oracle Cards" bulk file.

Both are recognised by content, never by name: the compression by its magic bytes (gzip, xz, bzip2,
zip, or none) and the format by the JSON's shape (an object whose top-level keys are ``meta`` and
``data`` is AtomicCards; an array of objects with ``"object": "card"`` is Scryfall). The file is
parsed as a stream (ijson) so a 100 MB file never sits in memory as text or as one parsed tree:
one card's JSON at a time becomes a :class:`kb.sources.card_model.Card`.

Faults are reported, not raised, wherever the rest can still be read: a damaged card (a wrong
shape, no name, a name longer than :data:`MAX_NAME`, an Oracle name, type line or text holding
HTML markup or a lone surrogate) is skipped and reported as a :class:`CardProblem` naming the
file, the card's index and name and a byte offset in the uncompressed JSON: where the card's name
stands (looked for in the last 128 KiB read; None if it is not there). The same fault in a
printed translation or a ruling (the 2022 AtomicCards has "&lt;" in three French texts) leaves
out only that text or ruling, reported as a warning. A truncated or malformed file keeps the
cards read before the fault and reports where it stopped. Only a file that is not a
card file at all (not JSON, an unknown shape) raises :class:`CardFileError`.

MTGJSON omits the text of a face that has none (a vanilla creature): its text is empty. Scryfall
always writes ``oracle_text`` (``""`` for none), so a Scryfall face without it is damage; so is a
text that is not a string (``null``, a number) in either format.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import IO, Any

import ijson

from kb.sources.card_model import Card
from kb.sources.card_shapes import (
    MAX_NAME,
    Damaged,
    check,
    from_atomic,
    from_scryfall,
    guess_name,
    strings_of,
)

__all__ = [
    "MAX_NAME",
    "CardFile",
    "CardFileError",
    "CardProblem",
    "iter_cards",
    "read_cards",
    "sniff",
]

#: Bytes handed to the JSON parser at a time; a syntax error lies within the last such read.
CHUNK = 64 * 1024
#: Bytes read to recognise a file (its compression and its JSON shape).
HEAD = 256 * 1024

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),
    (b"PK\x03\x04", "zip"),
)
# a \uD800-\uDBFF escape not followed by a low one, or a \uDC00-\uDFFF escape not preceded by one
_LONE_ESCAPE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


@dataclass(slots=True)
class CardProblem:
    """A fault found while reading: file, card index and name where known, byte offset."""

    path: str
    message: str
    index: int | None = None  # the card's position in the file (0-based)
    name: str | None = None
    offset: int | None = None  # byte offset in the uncompressed JSON (see each message)
    severity: str = "error"  # "error": the card (or the rest of the file) was not read

    @property
    def where(self) -> str:
        """``file, card #12 'Name', byte 4096``: as much of the position as is known."""
        parts = [self.path]
        if self.index is not None:
            parts.append(f"card #{self.index}")
        if self.name is not None:
            short = self.name if len(self.name) <= 60 else self.name[:57] + "…"
            parts.append(repr(short))
        if self.offset is not None:
            parts.append(f"byte {self.offset}")
        return ", ".join(parts)

    def __str__(self) -> str:
        return f"{self.where}: {self.severity}: {self.message}"


class CardFileError(Exception):
    """A file that holds no readable cards at all; ``problem`` names the file and the position."""

    def __init__(self, problem: CardProblem) -> None:
        self.problem = problem
        self.path = problem.path
        self.offset = problem.offset
        super().__init__(str(problem))


@dataclass(slots=True)
class CardFile:
    """What :func:`read_cards` read: the cards, the format and compression found, the faults."""

    path: str
    format: str  # "mtgjson-atomic" | "scryfall-oracle"
    compression: str  # "none" | "gzip" | "xz" | "bzip2" | "zip"
    cards: list[Card] = field(default_factory=list)
    problems: list[CardProblem] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


class _Counting:
    """The uncompressed bytes for the parser, counted; a leading UTF-8 BOM dropped.

    A lone surrogate escape (``\\udc00``, or ``\\ud800`` with no low half) would make the parser
    fail or read "?"; it is rewritten as ``\\ufffd`` (as long, so offsets hold) and its offset
    noted, for the card holding it to be reported. The last few bytes of a read are held back
    until the next so that an escape is never cut in two.
    """

    HOLD = 12

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.offset = 0  # bytes handed to the parser so far
        self.start = 0  # where the last read began
        self.lone: list[int] = []  # offsets of rewritten lone surrogate escapes
        self._held = b""
        self._first = True
        self._recent = b""  # the last two reads, to find a card's bytes in
        self._recent_start = 0

    def locate(self, name: str | None) -> int | None:
        """Where ``name`` (as a JSON string) last stands in the last two reads: the position of
        a card the parser has just finished; None if it is not there (a long card came after)."""
        if name and len(name) <= 1000:
            needle = json.dumps(name, ensure_ascii=False).encode("utf-8", "replace")
            at = self._recent.rfind(needle + b":")  # AtomicCards' key
            if at < 0:
                at = self._recent.rfind(needle)
            if at >= 0:
                return self._recent_start + at
        return None

    def error_offset(self, exc: BaseException) -> int:
        """The byte offset of a parse error: the parser's message quotes the text around it with
        a caret under the fault, found again in the last bytes read; else the end of the data
        read (a premature end, or a quote no longer in reach)."""
        text = exc.args[0] if exc.args else ""
        if isinstance(text, str):
            text = text.encode("utf-8", "replace")
        lines = text.split(b"\n")
        if len(lines) >= 3 and b"^" in lines[2]:
            quote = lines[1].lstrip()
            if len(quote) >= 8:
                at = self._recent.rfind(quote)
                if at >= 0:
                    caret = lines[2].index(b"^") - (len(lines[1]) - len(quote))
                    return self._recent_start + at + max(caret, 0)
        return self.offset

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson asks once whether the stream gives bytes or text
            return b""
        data = self.raw.read(size)
        if self._first and data:
            self._first = False
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
                self.offset = 3
        buffer = self._held + data
        end = len(buffer) if not data else max(len(buffer) - self.HOLD, 0)
        if b"\\u" in buffer:
            chunk = bytearray(buffer)
            for match in _LONE_ESCAPE.finditer(buffer, 0, len(buffer)):
                if match.start() >= end:
                    break
                chunk[match.start() : match.end()] = b"\\ufffd"
                self.lone.append(self.offset + match.start())
            buffer = bytes(chunk)
        out, self._held = buffer[:end], buffer[end:]
        previous = self._recent[-len(out) :] if len(self._recent) > len(out) else self._recent
        self._recent_start = self.offset - len(previous)
        self._recent = previous + out
        self.start = self.offset
        self.offset += len(out)
        if not out and self._held and data:
            return self.read(size)
        return out


def _open_raw(path: Path) -> tuple[str, IO[bytes]]:
    """The file's compression (by magic bytes) and a stream of its uncompressed bytes."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise CardFileError(CardProblem(str(path), f"cannot read: {exc.strerror or exc}")) from None
    kind = next((name for magic, name in _MAGIC if head.startswith(magic)), "none")
    try:
        if kind == "gzip":
            return kind, gzip.open(path, "rb")
        if kind == "xz":
            return kind, lzma.open(path, "rb")
        if kind == "bzip2":
            return kind, bz2.open(path, "rb")
        if kind == "zip":
            archive = zipfile.ZipFile(path)
            for info in archive.infolist():
                if info.is_dir():
                    continue
                with archive.open(info) as member:
                    first = member.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
                if first[:1] in (b"{", b"["):
                    return kind, archive.open(info)
            raise CardFileError(CardProblem(str(path), "zip archive holds no JSON file"))
    except (OSError, zipfile.BadZipFile, lzma.LZMAError, EOFError) as exc:
        raise CardFileError(CardProblem(str(path), f"cannot open {kind} data: {exc}")) from None
    return kind, open(path, "rb")


def sniff(path: Path | str) -> tuple[str, str]:
    """``(format, compression)`` of a card file, from its bytes and its JSON's first keys.

    Raises CardFileError if it is not one of the two formats.
    """
    path = Path(path)
    compression, raw = _open_raw(path)
    head = b""
    with raw:
        try:
            while len(head) < HEAD:
                block = raw.read(16 * 1024)
                if not block:
                    break
                head += block
        except (OSError, lzma.LZMAError, EOFError, zipfile.BadZipFile) as exc:
            if not head:
                message = f"cannot decompress: {exc}"
                raise CardFileError(CardProblem(str(path), message, offset=0)) from None
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text:
        raise CardFileError(CardProblem(str(path), "empty file: no JSON", offset=0))
    events: list[tuple[str, str, Any]] = []
    try:
        for event in ijson.parse(io.BytesIO(text)):
            events.append(event)
            if len(events) >= 64:
                break
    except ijson.JSONError as exc:
        if _shape(events) is None:
            message = _first_line(exc)
            raise CardFileError(CardProblem(str(path), f"not JSON: {message}", offset=0)) from None
    fmt = _shape(events)
    if fmt is None:
        raise CardFileError(
            CardProblem(
                str(path),
                "neither MTGJSON AtomicCards ({'meta', 'data': {name: [faces]}}) nor Scryfall "
                "Oracle Cards ([{'object': 'card', …}]) (another MTGJSON or Scryfall file?)",
                offset=0,
            )
        )
    return fmt, compression


def _shape(events: list[tuple[str, str, Any]]) -> str | None:
    if not events:
        return None
    if events[0][1] == "start_map":
        keys = [value for prefix, kind, value in events if prefix == "" and kind == "map_key"]
        if not keys or keys[0] not in ("meta", "data"):
            return None
        for (prefix, kind, _), following in pairwise(events):
            if prefix == "data" and kind == "map_key":
                # AtomicCards: name -> [faces]; AllPrintings and others: code -> {…}
                return "mtgjson-atomic" if following[1] == "start_array" else None
        return "mtgjson-atomic"
    if events[0][1] == "start_array":
        for prefix, kind, value in events:
            if prefix == "item.object" and kind == "string":
                return "scryfall-oracle" if value == "card" else None
        return None
    return None


def _first_line(exc: BaseException) -> str:
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return str(text).strip().split("\n")[0]


def read_cards(path: Path | str) -> CardFile:
    """Read every card of an AtomicCards or Scryfall Oracle Cards file (compressed or not).

    Damaged cards are skipped and listed in ``problems``; a truncated or malformed file keeps the
    cards before the fault. Raises CardFileError if the file is not a card file at all.
    """
    path = Path(path)
    fmt, compression = sniff(path)
    result = CardFile(str(path), fmt, compression)
    result.cards = list(iter_cards(path, result.problems, meta=result.meta, fmt=fmt))
    return result


def iter_cards(
    path: Path | str,
    problems: list[CardProblem],
    *,
    meta: dict[str, Any] | None = None,
    fmt: str | None = None,
) -> Iterator[Card]:
    """Cards one at a time from a card file; faults are appended to ``problems``."""
    path = Path(path)
    if fmt is None:
        fmt = sniff(path)[0]
    _, raw = _open_raw(path)
    stream = _Counting(raw)
    name = str(path)
    if fmt == "mtgjson-atomic":
        if meta is not None:
            meta.update(_atomic_meta(path))
        entries = ijson.kvitems(stream, "data", use_float=True, buf_size=CHUNK)
        convert: Callable[[Any, Any, str, int], Card] = from_atomic
    else:
        entries = (
            (None, item) for item in ijson.items(stream, "item", use_float=True, buf_size=CHUNK)
        )
        convert = from_scryfall
    index = -1
    last_name: str | None = None
    try:
        with raw:
            for index, (key, value) in enumerate(entries):
                card_name = key if isinstance(key, str) else guess_name(value)
                try:
                    card = convert(key, value, name, index)
                    warnings = check(card)
                    _check_lone(stream, card)
                except Damaged as exc:
                    problems.append(
                        CardProblem(
                            name,
                            f"card skipped: {exc}",
                            index,
                            card_name,
                            stream.locate(card_name),
                        )
                    )
                    continue
                problems.extend(
                    CardProblem(name, w, index, card.name, stream.locate(card.name), "warning")
                    for w in warnings
                )
                last_name = card.name
                yield card
        if index < 0:
            where = "'data' object" if fmt == "mtgjson-atomic" else "array"
            problems.append(
                CardProblem(name, f"no cards: the {where} is empty or absent", offset=0)
            )
    except ijson.JSONError as exc:
        after = f" after card #{index} {last_name!r}" if last_name is not None else ""
        offset = stream.error_offset(exc)
        problems.append(
            CardProblem(
                name,
                f"malformed or truncated JSON{after} at byte {offset}: "
                f"{_first_line(exc)}; the rest of the file was not read",
                index + 1,
                None,
                offset,
            )
        )
    except (OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile) as exc:
        problems.append(
            CardProblem(
                name,
                f"compressed data damaged near byte {stream.offset}: {exc}; the rest was not read",
                index + 1,
                None,
                stream.offset,
            )
        )


def _atomic_meta(path: Path) -> dict[str, Any]:
    """AtomicCards' small ``meta`` object (date, version), read from the file's head."""
    _, raw = _open_raw(path)
    with raw:
        head = raw.read(64 * 1024)
    try:
        for value in ijson.items(io.BytesIO(head.lstrip(b"\xef\xbb\xbf")), "meta"):
            return value if isinstance(value, dict) else {}
    except ijson.JSONError:
        pass
    return {}


def _check_lone(stream: _Counting, card: Card) -> None:
    """A lone surrogate escape (rewritten as U+FFFD) found in the bytes of this card."""
    if stream.lone and any("\ufffd" in text for _, text in strings_of(card)):
        offset = stream.lone.pop(0)
        raise Damaged(f"a lone surrogate escape at byte {offset}")
