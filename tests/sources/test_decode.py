"""Decoding of published text files: every encoding and line ending we meet, and clear errors."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from kb.sources.decode import decode_bytes, normalize_text, read_text
from kb.sources.records import SourceError

SAMPLE = "Règle 117.1. Priorité — “quoted”\nSecond\u00a0line ends here\nThird\n"
EXPECTED = "Règle 117.1. Priorité — “quoted”\nSecond line ends here\nThird\n"

ENCODINGS = [
    ("utf-8", b""),
    ("utf-8", codecs.BOM_UTF8),
    ("cp1252", b""),
    ("utf-16-le", codecs.BOM_UTF16_LE),
    ("utf-16-be", codecs.BOM_UTF16_BE),
]
LINE_ENDINGS = ["\n", "\r\n", "\r", "\u2028", "\u2029"]


def _cases() -> list[tuple[str, bytes, str]]:
    cases = []
    for codec, bom in ENCODINGS:
        for eol in LINE_ENDINGS:
            if codec == "cp1252" and eol in "\u2028\u2029":
                continue  # windows-1252 cannot encode the Unicode separators
            label = f"{codec}{'+bom' if bom else ''}-{eol.encode('unicode_escape').decode()}"
            cases.append((label, bom + SAMPLE.replace("\n", eol).encode(codec), EXPECTED))
    return cases


@pytest.mark.parametrize(("label", "data", "expected"), _cases(), ids=[c[0] for c in _cases()])
def test_decode_every_encoding_and_line_ending(label: str, data: bytes, expected: str) -> None:
    assert decode_bytes(data, f"{label}.txt") == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"a\r\nb\rc\nd", "a\nb\nc\nd"),  # the 2023-11-17 edition mixes CRLF and CR
        (b"a\r\r\nb", "a\n\nb"),  # a bare CR right before a CRLF is two line breaks
        (b"caf\xe9 \x93x\x94 it\x92s", "café “x” it’s"),  # not UTF-8: windows-1252
        (b"odd \x81 byte \xe9", "odd \x81 byte é"),  # undefined in windows-1252: kept as Latin-1
        (codecs.BOM_UTF8 + "ok\u00a0".encode(), "ok "),
        (b"tab\there", "tab\there"),
    ],
)
def test_decode_special_cases(data: bytes, expected: str) -> None:
    assert decode_bytes(data, "x.txt") == expected


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "empty"),
        (codecs.BOM_UTF8, "empty"),
        (b" \r\n\t\r\n", "empty"),
        (b"PK\x03\x04\x00\x00binary", "binary"),
        (bytes(range(1, 9)) * 20 + b"some text", "binary"),
        (codecs.BOM_UTF16_LE + b"a", "UTF-16 LE"),  # odd length: not UTF-16
        (codecs.BOM_UTF8 + b"bad \xff utf-8", "UTF-8"),
    ],
)
def test_decode_errors_name_the_file(data: bytes, why: str) -> None:
    with pytest.raises(SourceError) as info:
        decode_bytes(data, "dir/broken.txt")
    assert "dir/broken.txt" in str(info.value)
    assert why in str(info.value)
    assert info.value.problem.path == "dir/broken.txt"
    assert info.value.problem.severity == "error"


def test_utf16_with_nul_bytes_is_text_not_binary() -> None:
    data = codecs.BOM_UTF16_BE + "100.1a Text\r\n".encode("utf-16-be")
    assert b"\x00" in data
    assert decode_bytes(data, "x.txt") == "100.1a Text\n"


def test_normalize_text_is_idempotent() -> None:
    once = normalize_text("a\r\nb\rc\u2028d\u2029e\u00a0f")
    assert once == "a\nb\nc\nd\ne f"
    assert normalize_text(once) == once


def test_read_text_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "rules.txt"
    path.write_bytes(codecs.BOM_UTF16_LE + "Glossary\r\nCredits".encode("utf-16-le"))
    assert read_text(path) == "Glossary\nCredits"


def test_read_text_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "absent.txt"
    with pytest.raises(SourceError) as info:
        read_text(missing)
    assert str(missing) in str(info.value)
    assert "cannot read" in str(info.value)


def test_read_text_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(SourceError, match="empty"):
        read_text(empty)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    "text",
    [
        "Magic: The Gathering Comprehensive Rules\r\n\r\n117.1. Timing — “priority”\r\n",
        "総合ルール\r\n\r\n117.1 優先権とは、どのプレイヤーが行動できるかを決めるものである。\r\n",
    ],
    ids=["english", "japanese"],
)
def test_utf16_without_a_byte_order_mark_is_text(codec: str, text: str) -> None:
    # Issue 12 item 16: such a file was refused as binary though any encoding is promised.
    data = text.encode(codec)
    assert not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    assert decode_bytes(data, "x.txt") == text.replace("\r\n", "\n")


@pytest.mark.parametrize(
    "data",
    [bytes(range(256)) * 8, bytes(range(7, 250)) * 16 + b"\x00\x00", b"\x00" * 64 + b"text"],
    ids=["every-byte", "odd-length", "nul-padding"],
)
def test_binary_with_nul_bytes_is_not_taken_for_utf16(data: bytes) -> None:
    with pytest.raises(SourceError, match="binary"):
        decode_bytes(data, "x.bin")
