"""Reader of card files: MTGJSON AtomicCards (schema v5) and Scryfall's "Oracle Cards" bulk file.

Both are recognised by content, never by name: the compression by its magic bytes (gzip, xz, bzip2,
zip, or none) and the format by the JSON's shape (an object whose top-level keys are ``meta`` and
``data`` is AtomicCards; an array of objects with ``"object": "card"`` is Scryfall). The file is
parsed as a stream (ijson) so a 100 MB file never sits in memory as text or as one parsed tree:
one card's JSON at a time becomes a :class:`kb.cards.model.Card`.

Faults are reported, not raised, wherever the rest can still be read: a damaged card (a wrong
shape, no name, a name longer than :data:`MAX_NAME`, an Oracle name, type line or text holding
HTML markup or a lone surrogate) is skipped and reported as a :class:`CardProblem` naming the
file, the card's index and name and the byte offset in the uncompressed JSON where the parser
stood. The same fault in a printed translation or a ruling (the 2022 AtomicCards has "&lt;" in
three French texts) leaves out only that translation or ruling, reported as a warning. A truncated or malformed file
keeps the cards read before the fault and reports where it stopped. Only a file that is not a
card file at all (not JSON, an unknown shape) raises :class:`CardFileError`.

MTGJSON omits the text of a face that has none (a vanilla creature): its text is empty. Scryfall
always writes ``oracle_text`` (``""`` for none), so a Scryfall face without it is damage; so is a
text that is not a string (``null``, a number) in either format.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import ijson

from kb.cards.model import Card, Face, Printed, Ruling

__all__ = [
    "MAX_NAME",
    "CardFile",
    "CardFileError",
    "CardProblem",
    "iter_cards",
    "read_cards",
    "sniff",
]

#: A name longer than this is damage, not a card (the longest real one is about 150 characters).
MAX_NAME = 300
#: Bytes handed to the JSON parser at a time; a syntax error lies within the last such read.
CHUNK = 64 * 1024

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),
    (b"PK\x03\x04", "zip"),
)
# markup, not prose in angle brackets ("<spooky music>" is a real ruling): HTML element names only
_HTML = re.compile(
    r"<\s*/?\s*(?:a|abbr|b|br|div|em|font|h[1-6]|hr|i|img|li|ol|p|script|small|span|strong|"
    r"style|sub|sup|table|td|th|tr|u|ul|iframe)\b[^<>]*>|&(?:lt|gt|amp|nbsp|quot|#\d+);",
    re.IGNORECASE,
)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# a \uD800-\uDBFF escape not followed by a low one, or a \uDC00-\uDFFF escape not preceded by one
_LONE_ESCAPE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<![0-9a-fA-F]{2})(?<!\\u[dD][89abAB])\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_FOREIGN = {"French": "fr", "Japanese": "ja"}
_SUPERTYPES = frozenset({"Basic", "Legendary", "Ongoing", "Snow", "World", "Elite", "Host"})


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


class _Damaged(Exception):
    """One card's JSON cannot be made a card (caught per card, reported as a CardProblem)."""


class _NoText(_Damaged):
    """A Scryfall face with no ``oracle_text`` key at all (Scryfall writes "" for no text)."""

    def __init__(self, face: str) -> None:
        super().__init__(f"face {face[:60]!r} has no 'oracle_text'")


class _Counting:
    """Counts the bytes read, drops a leading UTF-8 BOM and notes lone surrogate escapes."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.offset = 0
        self.start = 0  # where the last read began
        self.lone: list[int] = []  # byte offsets of \\uD8xx escapes with no pair
        self._tail = b""

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        if self.offset == 0 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
            self.offset = 3
        self.start = self.offset
        window = self._tail + data
        if b"\\u" in window:
            base = self.offset - len(self._tail)
            for match in _LONE_ESCAPE.finditer(window):
                # an escape at the very end may be paired by the next read: decided then
                if match.end() + 6 > len(window) and data:
                    continue
                pos = base + match.start()
                if pos not in self.lone:
                    self.lone.append(pos)
        self._tail = window[-12:]
        self.offset += len(data)
        return data


def _open_raw(path: Path) -> tuple[str, IO[bytes]]:
    """The file's compression (by magic bytes) and a stream of its uncompressed bytes."""
    with open(path, "rb") as f:
        head = f.read(8)
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
    with raw:
        try:
            head = raw.read(256 * 1024)
        except (OSError, lzma.LZMAError, EOFError, zipfile.BadZipFile) as exc:
            raise CardFileError(
                CardProblem(str(path), f"cannot decompress: {exc}", offset=0)
            ) from None
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
        if len(head) < 256 * 1024 or not events:
            message = _first_line(exc)
            raise CardFileError(CardProblem(str(path), f"not JSON: {message}", offset=0)) from None
    fmt = _shape(events)
    if fmt is None:
        raise CardFileError(
            CardProblem(
                str(path),
                "neither MTGJSON AtomicCards ({'meta', 'data': {name: [faces]}}) nor Scryfall "
                "Oracle Cards ([{'object': 'card', …}])",
                offset=0,
            )
        )
    return fmt, compression


def _shape(events: list[tuple[str, str, Any]]) -> str | None:
    if not events:
        return None
    if events[0][1] == "start_map":
        keys = [value for prefix, kind, value in events if prefix == "" and kind == "map_key"]
        return "mtgjson-atomic" if keys and keys[0] in ("meta", "data") else None
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
        convert: Callable[[Any, Any, str, int], Card] = _from_atomic
    else:
        entries = (
            (None, item) for item in ijson.items(stream, "item", use_float=True, buf_size=CHUNK)
        )
        convert = _from_scryfall
    index = -1
    last_name: str | None = None
    try:
        with raw:
            for index, (key, value) in enumerate(entries):
                card_name = key if isinstance(key, str) else _guess_name(value)
                try:
                    card = convert(key, value, name, index)
                    warnings = _check(card)
                    _check_lone(stream, card)
                except _Damaged as exc:
                    problems.append(
                        CardProblem(name, f"card skipped: {exc}", index, card_name, stream.start)
                    )
                    continue
                problems.extend(
                    CardProblem(name, w, index, card.name, stream.start, "warning")
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
        problems.append(
            CardProblem(
                name,
                f"malformed or truncated JSON{after}, within bytes {stream.start}-{stream.offset}: "
                f"{_first_line(exc)}; the rest of the file was not read",
                index + 1,
                None,
                stream.start,
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


def _guess_name(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return value["name"]
    return None


def _str(obj: dict[str, Any], key: str, what: str, *, required: bool = False) -> str:
    value = obj.get(key)
    if value is None:
        if required:
            raise _Damaged(f"{what} has no {key!r}")
        return ""
    if not isinstance(value, str):
        raise _Damaged(f"{what}: {key!r} is {type(value).__name__}, not a string")
    return value


def _opt(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return None if value is None else str(value)


def _strings(obj: dict[str, Any], key: str, what: str) -> list[str]:
    value = obj.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Damaged(f"{what}: {key!r} is not a list of strings")
    return list(value)


def _number(obj: dict[str, Any], key: str) -> float:
    value = obj.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _from_atomic(key: Any, value: Any, path: str, index: int) -> Card:
    """A card from AtomicCards' ``name: [face, …]`` entry."""
    if not isinstance(value, list) or not value or not all(isinstance(f, dict) for f in value):
        raise _Damaged("expected a non-empty list of face objects")
    faces_json = sorted(value, key=lambda f: str(f.get("side") or ""))
    first = faces_json[0]
    name = _str(first, "name", "face", required=True)
    if name != key:
        raise _Damaged(f"key {str(key)[:60]!r} differs from the card's name {name[:60]!r}")
    faces = [_atomic_face(f, i) for i, f in enumerate(faces_json)]
    keywords: list[str] = []
    for f in faces_json:
        keywords.extend(k for k in _strings(f, "keywords", "face") if k not in keywords)
    rulings_json = first.get("rulings") or []
    if not isinstance(rulings_json, list):
        raise _Damaged("'rulings' is not a list")
    rulings = [
        Ruling(_str(r, "date", "ruling"), _str(r, "text", "ruling"))
        for r in rulings_json
        if isinstance(r, dict)
    ]
    identifiers = first.get("identifiers") if isinstance(first.get("identifiers"), dict) else {}
    rank = first.get("edhrecRank")
    return Card(
        name=name,
        layout=_str(first, "layout", "card") or "normal",
        faces=faces,
        mana_value=_number(first, "manaValue"),
        keywords=keywords,
        rulings=rulings,
        oracle_id=_opt(identifiers or {}, "scryfallOracleId"),
        rank=int(rank) if isinstance(rank, int | float) else None,
        source=path,
        index=index,
    )


def _atomic_face(f: dict[str, Any], i: int) -> Face:
    what = f"face {i}"
    face = Face(
        name=_str(f, "faceName", what) or _str(f, "name", what, required=True),
        type_line=_str(f, "type", what, required=True),
        text=_str(f, "text", what),
        mana_cost=_str(f, "manaCost", what),
        mana_value=_number(f, "faceManaValue" if "faceManaValue" in f else "manaValue"),
        supertypes=_strings(f, "supertypes", what),
        types=_strings(f, "types", what),
        subtypes=_strings(f, "subtypes", what),
        power=_opt(f, "power"),
        toughness=_opt(f, "toughness"),
        loyalty=_opt(f, "loyalty"),
        defense=_opt(f, "defense"),
        side=_opt(f, "side"),
    )
    foreign = f.get("foreignData") or []
    if not isinstance(foreign, list):
        raise _Damaged(f"{what}: 'foreignData' is not a list")
    for entry in foreign:
        lang = _FOREIGN.get(entry.get("language")) if isinstance(entry, dict) else None
        if lang is None or lang in face.printed:
            continue
        printed_name = _str(entry, "faceName", f"{what} {lang}") or _str(entry, "name", lang)
        if printed_name:
            face.printed[lang] = Printed(
                printed_name, _str(entry, "type", f"{what} {lang}"), _str(entry, "text", lang)
            )
    return face


def _from_scryfall(_key: Any, value: Any, path: str, index: int) -> Card:
    """A card from one object of Scryfall's Oracle Cards array."""
    if not isinstance(value, dict):
        raise _Damaged(f"expected a card object, found {type(value).__name__}")
    if value.get("object") != "card":
        raise _Damaged(f"'object' is {value.get('object')!r}, not 'card'")
    name = _str(value, "name", "card", required=True)
    faces_json = value.get("card_faces")
    if faces_json is not None and (
        not isinstance(faces_json, list) or not all(isinstance(f, dict) for f in faces_json)
    ):
        raise _Damaged("'card_faces' is not a list of face objects")
    sides = "abcdefgh"
    if faces_json:
        faces = [
            _scryfall_face(f, value, f"face {i}", sides[i] if i < len(sides) else None)
            for i, f in enumerate(faces_json)
        ]
    else:
        faces = [_scryfall_face(value, value, "card", None)]
    rank = value.get("edhrec_rank")
    return Card(
        name=name,
        layout=_str(value, "layout", "card") or "normal",
        faces=faces,
        mana_value=_number(value, "cmc"),
        keywords=_strings(value, "keywords", "card"),
        rulings=[],  # Scryfall publishes rulings in a separate bulk file
        oracle_id=_opt(value, "oracle_id"),
        rank=int(rank) if isinstance(rank, int | float) else None,
        source=path,
        index=index,
    )


def _scryfall_face(f: dict[str, Any], card: dict[str, Any], what: str, side: str | None) -> Face:
    if "oracle_text" not in f:
        raise _NoText(_str(f, "name", what, required=True))
    type_line = _str(f, "type_line", what)
    supertypes, types, subtypes = _split_type_line(type_line)
    return Face(
        name=_str(f, "name", what, required=True),
        type_line=type_line,
        text=_str(f, "oracle_text", what),
        mana_cost=_str(f, "mana_cost", what),
        mana_value=_number(f, "cmc") if "cmc" in f else _number(card, "cmc"),
        supertypes=supertypes,
        types=types,
        subtypes=subtypes,
        power=_opt(f, "power"),
        toughness=_opt(f, "toughness"),
        loyalty=_opt(f, "loyalty"),
        defense=_opt(f, "defense"),
        side=side,
    )


def _split_type_line(type_line: str) -> tuple[list[str], list[str], list[str]]:
    """``Legendary Creature — Elf Druid`` -> supertypes, card types, subtypes."""
    left, _, right = type_line.partition("—")
    words = left.split()
    supers = [w for w in words if w in _SUPERTYPES]
    types = [w for w in words if w not in _SUPERTYPES]
    return supers, types, right.split()


def _strings_of(card: Card) -> Iterator[tuple[str, str]]:
    yield "name", card.name
    for face in card.faces:
        yield f"{face.name[:40]!r} name", face.name
        yield f"{face.name[:40]!r} type line", face.type_line
        yield f"{face.name[:40]!r} text", face.text
        for lang, printed in face.printed.items():
            yield f"{face.name[:40]!r} {lang} name", printed.name
            yield f"{face.name[:40]!r} {lang} text", printed.text
            yield f"{face.name[:40]!r} {lang} type line", printed.type_line
    for ruling in card.rulings:
        yield f"ruling of {ruling.date}", ruling.text


def _fault(text: str) -> str | None:
    if _SURROGATE.search(text):
        return "a lone surrogate"
    tag = _HTML.search(text)
    return f"HTML ({tag[0][:40]!r})" if tag else None


def _check(card: Card) -> list[str]:
    """Damage no real card has: an overlong name, HTML, lone surrogates. In the Oracle name, type
    line or text it skips the card (raises); in a printed translation or a ruling it drops that
    translation or ruling and is returned as a warning (the card is still right in English)."""
    if not card.name.strip():
        raise _Damaged("empty name")
    for face in card.faces:
        if len(face.name) > MAX_NAME or len(card.name) > MAX_NAME:
            longest = max(len(face.name), len(card.name))
            raise _Damaged(f"a name of {longest} characters (more than {MAX_NAME})")
    for what, text in (("name", card.name),) + tuple(
        (f"{f.name[:40]!r} {part}", value)
        for f in card.faces
        for part, value in (("name", f.name), ("type line", f.type_line), ("text", f.text))
    ):
        fault = _fault(text)
        if fault:
            raise _Damaged(f"{what} holds {fault}")
    warnings: list[str] = []
    for face in card.faces:
        for lang, printed in list(face.printed.items()):
            for part in ("name", "type_line", "text"):
                fault = _fault(getattr(printed, part))
                if fault:
                    warnings.append(
                        f"{face.name[:40]!r} {lang} {part.replace('_', ' ')} holds {fault}; "
                        f"the {lang} text of this face was left out"
                    )
                    del face.printed[lang]
                    break
    kept = []
    for ruling in card.rulings:
        fault = _fault(ruling.text)
        if fault:
            warnings.append(f"ruling of {ruling.date} holds {fault}; left out")
        else:
            kept.append(ruling)
    card.rulings = kept
    return warnings


def _check_lone(stream: _Counting, card: Card) -> None:
    """A lone \\uD8xx escape (the parser turns it into '?') found in the bytes of this card."""
    if stream.lone and any("?" in text for _, text in _strings_of(card)):
        offset = stream.lone.pop(0)
        raise _Damaged(f"a lone surrogate escape at byte {offset}")
