"""What one line of a translated rules text is: its language, a date it states, a heading.

The reader of translations published one paragraph a line (:mod:`kb.sources.cr_translated`)
classifies each line by these marks; they are kept apart so that the sniffer and the reader
agree on them, and so that each can be tested on a line alone.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from kb.text.normal import MONTH_NAMES

FORMAT = "cr-translated"

_KANA = re.compile(r"[\u3040-\u30ff]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_WORDS = re.compile(r"[a-zà-ÿœæ]+", re.IGNORECASE)
_EN_WORDS = frozenset({
    "the", "of", "and", "is", "to", "a", "an", "that", "this", "player", "players", "with",
    "its", "it", "be", "are", "or", "if", "each", "from", "any", "which", "you", "your", "can",
    "may", "has", "have", "when", "their", "they", "card", "cards", "would",
})  # fmt: skip
_FR_WORDS = frozenset({
    "le", "la", "les", "de", "des", "du", "et", "est", "un", "une", "que", "qui", "à", "au",
    "aux", "son", "sa", "ses", "ce", "cette", "joueur", "joueurs", "sur", "dans", "ne", "pas",
    "peut", "il", "elle", "sont", "si", "pour", "par", "avec", "lorsqu", "lorsque", "carte",
    "cartes",
})  # fmt: skip

#: 「…が 2026-01-16 に翻訳したものです。」, or a French header "traduit(e) le 2026-01-16".
_HEADER_JA = re.compile(r"(\d{4})\s*-\s*(\d{1,2})\s*-\s*(\d{1,2})\s*に翻訳")
_HEADER_FR = re.compile(r"tradu\w*\b.{0,80}?\ble\s+(\d{4})-(\d{1,2})-(\d{1,2})\b", re.IGNORECASE)
#: 「このルールは2026年1月16日から有効です。」 / "Ces règles entrent en vigueur le 16 janvier 2026."
_EFFECTIVE_JA = re.compile(
    r"^このルールは\s*(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*(?:から|より)\s*有効"
)
_EFFECTIVE_FR = re.compile(
    r"^Ces\s+règles\s+(?:entrent|sont)\s+en\s+vigueur\s+(?:le|à\s+compter\s+du)\s+"
    r"(\d{1,2})(?:er)?\s+([a-zéû]+)\s+(\d{4})",
    re.IGNORECASE,
)
_MONTHS_FR = {m: i + 1 for i, m in enumerate(MONTH_NAMES["fr"])}
#: 「連繋（れんけい）／Splice」: the term, its reading in kana, the English name (maybe empty).
_JA_HEADING = re.compile(r"^(?P<term>[^（／。]*?)（(?P<reading>[^）]*)）\s*／(?P<en>.*)$")
_EXAMPLE = re.compile(r"^(?:例|Exemples?|Examples?)\s*[:：]\s*")
_CONTENTS = ("もくじ", "目次", "Table des matières", "Sommaire")
_GLOSSARY = {"ja": "用語集", "fr": "Glossaire"}
_CREDITS = {"ja": "クレジット", "fr": "Crédits"}
_FILE_DATE = re.compile(r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?!\d)")


def line_lang(text: str) -> str | None:
    """The language a line is written in, when it says: "ja" (kana), "en" or "fr" (by their
    function words), None for a line too short or too mixed to tell (names, numbers)."""
    if len(_KANA.findall(text)) >= 2:
        return "ja"
    words = [w.lower() for w in _WORDS.findall(text)]
    en = sum(1 for w in words if w in _EN_WORDS)
    fr = sum(1 for w in words if w in _FR_WORDS)
    if en >= 3 and en > 2 * fr:
        return "en"
    if fr >= 3 and fr > 2 * en:
        return "fr"
    return None


def text_lang(text: str) -> str | None:
    """The language most of a text's lines are written in."""
    head = text[:20000]
    if head and len(_CJK.findall(head)) >= 0.1 * len(head):
        return "ja"
    counts = {"en": 0, "fr": 0}
    for line in head.split("\n"):
        found = line_lang(line)
        if found in counts:
            counts[found] += 1
    if counts["fr"] > counts["en"]:
        return "fr"
    return "en" if counts["en"] else None


def _iso(year: str, month: int | str, day: str) -> str:
    """ISO date, or "" for numbers that are no calendar date (2026-02-30)."""
    try:
        return datetime.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return ""


def header_date(line: str) -> str | None:
    """The translation date of a header line ("" when it is no calendar date), else None."""
    found = _HEADER_JA.search(line) or _HEADER_FR.search(line)
    return _iso(found[1], found[2], found[3]) if found else None


def effective_date(line: str) -> str | None:
    """The date of a line saying from when the rules are effective ("" when it is no calendar
    date), else None."""
    found = _EFFECTIVE_JA.match(line)
    if found:
        return _iso(found[1], found[2], found[3])
    found = _EFFECTIVE_FR.match(line)
    if found:
        month = _MONTHS_FR.get(found[2].lower())
        return _iso(found[3], month, found[1]) if month else ""
    return None


def file_name_date(path: str) -> str | None:
    """The ISO date in a file's name (``CompRules-ja-20260116-excerpt-117.txt``), if any."""
    for year, month, day in _FILE_DATE.findall(Path(path).name):
        found = _iso(year, month, day)
        if found:
            return found
    return None


def ja_glossary_heading(line: str) -> tuple[str, str, str] | None:
    """(term, reading, English) of a Japanese glossary heading, else None."""
    found = _JA_HEADING.match(line)
    if found is None or len(line) > 120:
        return None
    return found["term"].strip(), found["reading"].strip(), found["en"]


def example_prefix(line: str) -> int | None:
    """Where an example's text starts on a line opening with 例： / Exemple :, else None."""
    found = _EXAMPLE.match(line)
    return found.end() if found else None


def is_contents_heading(line: str) -> bool:
    """The heading of the contents list."""
    return line.strip() in _CONTENTS


def glossary_heading(line: str, lang: str) -> bool:
    """The glossary's heading line in that language (numbered as in the contents or not)."""
    return re.sub(r"^\d{1,2}\.\s*", "", line.strip()) == _GLOSSARY.get(lang)


def credits_heading(line: str, lang: str) -> bool:
    """The credits' heading line in that language."""
    return line.strip() == _CREDITS.get(lang)
