"""Interface languages: Babel catalogs compiled at start-up, locale negotiation and formatting.

The catalogs are read from the ``.po`` files and compiled in memory when the app starts, so a
checkout never serves a stale ``.mo`` (only the ``.po`` files are committed).
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date, format_skeleton
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations
from markupsafe import Markup, escape

from kb.text.normal import LANGUAGE_IN, MONTH_NAMES

LOCALES = ("en", "fr", "ja")
DEFAULT_LOCALE = "en"
TRANSLATIONS_DIR = Path(__file__).resolve().parent / "translations"
DOMAIN = "messages"

#: The name of each interface language in itself, for the switcher.
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "ja": "日本語"}


def po_path(locale: str) -> Path:
    """Where the catalog of one locale lives."""
    return TRANSLATIONS_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(locale: str) -> Translations:
    """The compiled catalog of a locale (English falls back to the message ids)."""
    path = po_path(locale)
    if not path.is_file():
        return Translations()
    with path.open("rb") as fp:
        catalog = read_po(fp, locale=locale, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def negotiate(accept_language: Iterable[tuple[str, float]]) -> str:
    """Pick the interface locale from Accept-Language pairs (best first); English by default.

    A quality of 0 means "not this language" (RFC 9110): such a locale is never picked, and
    when the reader refuses English too, the first of our locales not refused is."""
    refused = set()
    for value, quality in accept_language:
        tag = value.replace("_", "-").split("-")[0].lower()
        if quality <= 0:
            refused.add(tag)
        elif tag in LOCALES and tag not in refused:
            return tag
    if DEFAULT_LOCALE not in refused:
        return DEFAULT_LOCALE
    return next((loc for loc in LOCALES if loc not in refused), DEFAULT_LOCALE)


@cache
def _locale(code: str) -> Locale:
    """Babel's data for a locale, parsed once per process."""
    return Locale.parse(code)


#: CLDR's names of the texts' languages in each interface language (the rule pages name them;
#: tests/web/test_i18n.py checks them against Babel, which names any other).
_LANGUAGE_IN = LANGUAGE_IN


@lru_cache(maxsize=64)
def language_name(code: str, locale: str) -> str:
    """The name of the language ``code`` in the interface language ``locale``, from Babel's CLDR
    data ("anglais" on a French page, "英語" on a Japanese one); LANGUAGE_NAMES are self-names."""
    known = _LANGUAGE_IN.get(locale, {}).get(code)
    if known is not None:
        return known
    return _locale(locale).languages.get(code, code)


#: Dates and counts, which every rule page shows, are written here for the interface languages
#: (the months: :data:`kb.text.normal.MONTH_NAMES`; Japanese dates use numbers) so that they do not load
#: Babel's locale data (~6 MB per process); tests/web/test_i18n.py checks them against Babel.
#: The "long" date and the year-and-month of each locale (CLDR's patterns, filled).
_DAY = {
    "en": lambda d: f"{MONTH_NAMES['en'][d.month - 1]} {d.day}, {d.year}",
    # French writes the first of the month as an ordinal: « 1er octobre 2010 ».
    "fr": lambda d: f"{'1er' if d.day == 1 else d.day} {MONTH_NAMES['fr'][d.month - 1]} {d.year}",
    "ja": lambda d: f"{d.year}年{d.month}月{d.day}日",
}
_MONTH = {
    "en": lambda d: f"{MONTH_NAMES['en'][d.month - 1]} {d.year}",
    "fr": lambda d: f"{MONTH_NAMES['fr'][d.month - 1]} {d.year}",
    "ja": lambda d: f"{d.year}年{d.month}月",
}
#: The group separator of whole numbers (French: a narrow no-break space).
_GROUP = {"en": ",", "fr": "\u202f", "ja": ","}


@lru_cache(maxsize=8192)
def format_day(iso: str | None, locale: str) -> str:
    """An ISO date the way the locale writes it (``2025年11月14日``, ``14 novembre 2025``).

    Cached: a page names the same few hundred edition dates over and over."""
    if not iso:
        return ""
    try:
        day = dt.date.fromisoformat(iso)
    except ValueError:
        return iso
    if locale in _DAY:
        return _DAY[locale](day)
    return format_date(day, format="long", locale=_locale(locale))


@lru_cache(maxsize=2048)
def format_month(iso: str | None, locale: str) -> str:
    """The month of an ISO date as the locale writes it (``July 2010``, ``2010年7月``)."""
    try:
        day = dt.date.fromisoformat(iso or "")
    except ValueError:
        return ""
    if locale in _MONTH:
        return _MONTH[locale](day)
    return format_skeleton("yMMMM", day, locale=_locale(locale))


@lru_cache(maxsize=4096)
def format_number(value: int | float, locale: str) -> str:
    """A number with the locale's grouping (``1,234`` / ``1 234``)."""
    if type(value) is int and locale in _GROUP:
        return f"{value:,}".replace(",", _GROUP[locale])
    return format_decimal(value, locale=_locale(locale))


#: How each locale joins the items of a list inside a sentence.
LIST_SEPARATORS = {"en": ", ", "fr": ", ", "ja": "、"}


@dataclass(frozen=True, slots=True)
class Text:
    """A message id with its values, rendered late: in English for JSON and logs, in the
    visitor's locale for pages. Made with :func:`text`, which modules import as ``_`` so that
    ``pybabel extract`` finds the message ids."""

    msgid: str
    params: dict[str, Any] = field(default_factory=dict)

    def english(self) -> str:
        """The text in English (the message id itself, filled in)."""
        return self._fill(self.msgid, "en")

    def local(self, locale: str) -> str:
        """The text in ``locale`` (English where the catalog has no translation)."""
        return self._fill(translations(locale).ugettext(self.msgid), locale)

    def html(self, locale: str, markup: dict[str, Markup] | None = None) -> Markup:
        """The text in ``locale`` as HTML: values escaped, except ``markup`` ones (links)."""
        template = Markup(escape(translations(locale).ugettext(self.msgid)))
        values = {**self._values(locale), **(markup or {})}
        return template % values if self.params or markup else template

    def _values(self, locale: str) -> dict[str, Any]:
        sep = LIST_SEPARATORS.get(locale, ", ")
        out: dict[str, Any] = {}
        for key, value in self.params.items():
            if isinstance(value, list | tuple):
                value = sep.join(str(x) for x in value) or "—"
            elif isinstance(value, LanguageName | Day):
                value = value.name(locale)
            out[key] = value
        return out

    def _fill(self, template: str, locale: str) -> str:
        return template % self._values(locale) if self.params else template


@dataclass(frozen=True, slots=True)
class Day:
    """An ISO date as a :class:`Text` value: written the way the sentence's locale writes it
    (English "October 1, 2010" in the JSON error, « 1er octobre 2010 » on a French page)."""

    iso: str

    def name(self, locale: str) -> str:
        """The date in ``locale``."""
        return format_day(self.iso, locale)


@dataclass(frozen=True, slots=True)
class LanguageName:
    """A language code as a :class:`Text` value: named in the locale of the sentence."""

    code: str

    def name(self, locale: str) -> str:
        """``en`` is "English", "anglais" or "英語"; an unknown code stays as it is."""
        return language_name(self.code, locale)


def text(msgid: str, **params: Any) -> Text:
    """A :class:`Text` to render later; ``from kb.web.i18n import text as _`` marks ``msgid``
    for extraction."""
    return Text(msgid, params)
