"""The interface catalogs are complete in en, fr and ja, and dates read the way each locale writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from kb.base.paths import PROJECT_DIR
from kb.web.i18n import LOCALES, TRANSLATIONS_DIR, format_day, format_number, negotiate, po_path

KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2)}
METHODS = [
    ("kb/web/**.py", "python"),
    ("templates/**.html", "jinja2"),
    ("templates/**.xml", "jinja2"),
]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def extracted() -> set[str]:
    """Every message the code and the templates use, as the extractor sees them today."""
    found: set[str] = set()
    options = {"**.html": {"extensions": "jinja2.ext.i18n"}}
    for _file, _line, message, _comments, _ctx in extract_from_dir(
        str(PROJECT_DIR), METHODS, options_map=options, keywords=KEYWORDS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def catalog(locale: str):  # type: ignore[no-untyped-def]
    with po_path(locale).open("rb") as fp:
        return read_po(fp, locale=locale)


def test_babel_cfg_matches_the_extraction_used_here() -> None:
    cfg = (PROJECT_DIR / "babel.cfg").read_text(encoding="utf-8")
    for pattern, method in METHODS:
        assert f"[{method}: {pattern}]" in cfg


def test_template_catalog_is_up_to_date() -> None:
    with (TRANSLATIONS_DIR / "messages.pot").open("rb") as fp:
        pot = {m.id[0] if isinstance(m.id, tuple) else m.id for m in read_po(fp) if m.id}
    missing = extracted() - pot
    assert not missing, f"run pybabel extract (see babel.cfg): not in messages.pot: {missing}"


@pytest.mark.parametrize("locale", LOCALES)
def test_every_string_is_translated(locale: str) -> None:
    cat = catalog(locale)
    ids = {m.id[0] if isinstance(m.id, tuple) else m.id: m for m in cat if m.id}
    untranslated = sorted(
        msgid
        for msgid in extracted()
        if msgid not in ids
        or ids[msgid].fuzzy
        or not all(
            ids[msgid].string if isinstance(ids[msgid].string, tuple) else [ids[msgid].string]
        )
    )
    assert not untranslated, f"{po_path(locale)}: untranslated: {untranslated}"


@pytest.mark.parametrize("locale", LOCALES)
def test_translations_keep_their_placeholders(locale: str) -> None:
    for message in catalog(locale):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(PLACEHOLDER.findall(ids[0])) | set(PLACEHOLDER.findall(ids[-1]))
        for string in strings:
            assert set(PLACEHOLDER.findall(string)) == wanted, (locale, ids[0], string)


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("en", "November 14, 2025"),
        ("fr", "14 novembre 2025"),
        ("ja", "2025年11月14日"),
        ("fr-first", "1er octobre 2010"),
    ],
)
def test_dates_per_locale(locale: str, expected: str) -> None:
    if locale == "fr-first":
        assert format_day("2010-10-01", "fr") == expected
        return
    assert format_day("2025-11-14", locale) == expected


def test_numbers_and_bad_dates() -> None:
    assert format_number(3255, "en") == "3,255"
    assert format_number(3255, "fr") == "3\u202f255"
    assert format_day(None, "fr") == ""
    assert format_day("2010-07-01..2019-06-30", "en") == "2010-07-01..2019-06-30"


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([("fr-CA", 1.0), ("en", 0.5)], "fr"),
        ([("ja-JP", 1.0)], "ja"),
        ([("de", 1.0), ("es", 0.8)], "en"),
        ([], "en"),
        ([("EN_us", 1.0)], "en"),
        # quality 0 refuses a language (RFC 9110), wherever werkzeug lists it
        ([("ja", 0.0)], "en"),
        ([("fr", 0.5), ("ja", 0.0)], "fr"),
        ([("ja", 0.0), ("ja-JP", 1.0)], "en"),
        ([("en", 0.0), ("de", 1.0)], "fr"),
        ([("en", 0.0), ("fr", 0.0), ("ja", 0.5)], "ja"),
    ],
)
def test_negotiate(pairs: list[tuple[str, float]], expected: str) -> None:
    assert negotiate(pairs) == expected


def test_catalogs_are_compiled_from_po(tmp_path: Path) -> None:
    from kb.web.i18n import translations

    assert translations("fr").ugettext("Search") == "Rechercher"
    assert translations("ja").ungettext("%(num)d result", "%(num)d results", 3) == "%(num)d件の結果"


def test_dates_and_numbers_are_written_as_babel_writes_them() -> None:
    """The locales' own date and number formats (kept without Babel's locale data) give
    Babel's text for every day of 2000-2031 and numbers of every size and sign."""
    import datetime as dt

    from babel.dates import format_date, format_skeleton
    from babel.numbers import format_decimal

    from kb.web.i18n import format_month

    day = dt.date(2000, 1, 1)
    while day.year < 2032:
        iso = day.isoformat()
        for locale in LOCALES:
            babel = format_date(day, format="long", locale=locale)
            if locale == "fr" and day.day == 1:  # French writes the first « 1er » (issue 28)
                babel = "1er" + babel[1:]
            assert format_day(iso, locale) == babel
            assert format_month(iso, locale) == format_skeleton("yMMMM", day, locale=locale)
        day += dt.timedelta(days=1)
    for value in (0, 7, -7, 999, 1000, -1234, 12345, 999999, 1234567, 10**12):
        for locale in LOCALES:
            assert format_number(value, locale) == format_decimal(value, locale=locale)
    assert format_number(1234.5, "fr") == format_decimal(1234.5, locale="fr")


def test_language_names_are_babels() -> None:
    """The texts' languages named in each locale as Babel's CLDR data names them."""
    from babel import Locale

    from kb.web.i18n import language_name

    for locale in LOCALES:
        for code in (*LOCALES, "de", "ko"):
            assert language_name(code, locale) == Locale.parse(locale).languages[code]


def test_kb_serve_counts_its_workers_in_english() -> None:
    from kb.web.serving import workers_phrase

    assert workers_phrase(1) == "1 worker process"
    assert workers_phrase(4) == "4 worker processes"
