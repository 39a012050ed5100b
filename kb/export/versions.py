"""Which edition shows each version of a rule: the export writes one page per distinct version.

A rule that an edition prints exactly as an earlier edition of the same language did (its title,
text, examples and every rule below it) is the same version: its page in that edition would say
what the earlier page says. The export writes the page once, in the first edition that printed
the version, and answers the other editions' URLs with a redirect to it.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
from typing import Any

#: ``/<locale>/<edition>/rules/<number>`` (and its ``.json`` twin), as the export's URLs are quoted.
_PINNED = re.compile(r"^/(en|fr|ja)/([^/]+)/rules/([^/]+?)(\.json)?$")


def version_editions(kb: Any) -> dict[tuple[str, str], str]:
    """``(edition, number) -> edition`` for each rule an earlier edition printed the same: the
    edition whose page shows it. Rules whose version first appears in their own edition are not
    listed."""
    moved: dict[tuple[str, str], str] = {}
    langs = sorted({ed.lang for ed in kb.editions.values()})
    for lang in langs:
        first: dict[tuple[str, bytes], str] = {}
        for ed in kb.editions_of(lang):
            table = _rows(kb, ed.id)
            digests: dict[str, bytes] = {}
            for number in reversed(kb.ordered_numbers(ed.id)):  # children before their parents
                digests[number] = _digest(table[number], digests)
            for number, digest in digests.items():
                seen = first.setdefault((number, digest), ed.id)
                if seen != ed.id:
                    moved[(ed.id, number)] = seen
    return moved


def _rows(kb: Any, ed_id: str) -> dict[str, tuple[str, list[str]]]:
    """number -> (its words, its children) for one edition: read straight from the database
    when the knowledge base is stored (decoding whole rules takes ten times as long)."""
    db = getattr(kb, "_db", None)
    if db is not None:
        rows = db.all(
            "SELECT number, kind, coalesce(title, ''), text, examples, children FROM rules "
            "WHERE edition = ?",
            (ed_id,),
        )
        return {
            number: ("\x00".join((kind, title, text, examples)), json.loads(children))
            for number, kind, title, text, examples, children in rows
        }
    return {
        rule.number: (
            "\x00".join((rule.kind, rule.title or "", rule.text, json.dumps(rule.examples))),
            list(rule.children),
        )
        for rule in kb.rules[ed_id].values()
    }


def _digest(row: tuple[str, list[str]], below: dict[str, bytes]) -> bytes:
    """What a rule's page shows of the rule: its own words and those of every rule below it."""
    words, children = row
    h = hashlib.blake2b(words.encode(), digest_size=16)
    for child in children:
        h.update(below.get(child, child.encode()))
    return h.digest()


class Versions:
    """The version pages of an export: which pinned rule URLs are pages and which redirect.

    A version's page is written once, in the interface language of its edition's language
    (English editions' pages in English): ``/en/en-2019-01-25/rules/117.3b``. The same rule in
    another locale, or in a later edition that printed it unchanged, redirects there.
    """

    def __init__(self, kb: Any) -> None:
        from kb.web.i18n import LOCALES

        self.moved = version_editions(kb)
        self.numbers = {ed_id: set(kb.ordered_numbers(ed_id)) for ed_id in kb.editions}
        self.home = {ed.id: ed.lang if ed.lang in LOCALES else "en" for ed in kb.editions.values()}

    def current(self, kb: Any) -> set[tuple[str, str]]:
        """(edition, number) of the versions the newest edition of each language prints: the
        current rule pages show them already."""
        found = set()
        for lang in {ed.lang for ed in kb.editions.values()}:
            editions = kb.editions_of(lang)
            if editions:
                newest = editions[-1].id
                for number in kb.ordered_numbers(newest):
                    found.add((self.target(newest, number)[1], number))
        return found

    def target(self, edition: str, number: str) -> tuple[str, str]:
        """(locale, edition) of the page that shows ``number`` of ``edition``."""
        version = self.moved.get((edition, number), edition)
        return self.home.get(version, "en"), version

    def redirect(self, url: str) -> str | None:
        """Where a pinned rule URL (or its JSON twin) goes when it is no version page (else
        None: the page is written, or the URL is no pinned rule of a known edition)."""
        m = _PINNED.match(url)
        if m is None:
            return None
        locale, quoted_ed, number, twin = m.groups()
        edition, key = urllib.parse.unquote(quoted_ed), urllib.parse.unquote(number)
        if key not in self.numbers.get(edition, ()):
            return None  # an unknown edition, a misprint, another spelling: the server answers
        home, version = self.target(edition, key)
        if (home, version) == (locale, edition):
            return None
        return f"/{home}/{urllib.parse.quote(version)}/rules/{number}{twin or ''}"


def indexed_pages(pages: list[str], kb: Any, versions: Versions) -> list[str]:
    """The files Pagefind indexes: the current rules, glossary entries and examples, and each
    older version of a rule once (not the pinned pages of the current versions, whose hits
    would repeat the current rule's)."""
    current = versions.current(kb)
    files = []
    for url in pages:
        parts = url.strip("/").split("/")
        if len(parts) == 3 and parts[1] in ("rules", "glossary", "examples"):
            files.append(url)
        elif len(parts) == 4 and parts[2] == "rules":
            key = (urllib.parse.unquote(parts[1]), urllib.parse.unquote(parts[3]))
            if key not in current:
                files.append(url)
    return [urllib.parse.unquote(u).lstrip("/") + "/index.html" for u in files]
