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


#: Pattern hops a visitor may follow before reaching a file: every ``CHAIN``-th edition of a
#: version's run holds a stub that goes straight to the version's page.
CHAIN = 10


class Versions:
    """The version pages of an export: which pinned rule URLs are pages, stubs or patterns.

    A version's page is written once, in the interface language of its edition's language
    (English editions' pages in English): ``/en/en-2019-01-25/rules/117.3b``. The same rule in
    another locale goes there by a pattern of ``_redirects`` (one line per edition and locale).
    A later edition that printed the rule unchanged is answered without a file of its own: the
    pattern ``/en/<edition>/rules/* /en/<previous>/rules/:splat`` sends it to the edition before,
    which holds the page, or a stub (a small redirect page and a copy of the JSON twin), or sends
    it on. Every ``CHAIN``-th edition of a version's run, and wherever the edition before does not
    print the same version (a rule that came back to an earlier text, a partial edition between),
    holds a stub: at most ``CHAIN`` redirects from any pinned URL to its page, and some 13,000
    stubs instead of 190,000 for the archive's 105 editions.
    """

    def __init__(self, kb: Any) -> None:
        from kb.web.i18n import LOCALES

        self.moved = version_editions(kb)
        self.numbers = {ed_id: set(kb.ordered_numbers(ed_id)) for ed_id in kb.editions}
        self.home = {ed.id: ed.lang if ed.lang in LOCALES else "en" for ed in kb.editions.values()}
        #: edition -> the edition its pattern sends unchanged rules to
        self.previous: dict[str, str] = {}
        #: (edition, number) of the unchanged rules that hold a stub
        self.stubs: set[tuple[str, str]] = set()
        for lang in sorted({ed.lang for ed in kb.editions.values()}):
            self._chain([ed.id for ed in kb.editions_of(lang)], kb)

    def _chain(self, editions: list[str], kb: Any) -> None:
        """Link each edition to the full edition before it and choose the stubs (see above)."""
        full = {ed_id for ed_id in editions if kb.editions[ed_id].kind == "full"}
        depth: dict[str, int] = {}  # number -> pattern hops from the last edition to its file
        last: str | None = None
        for ed_id in editions:
            previous = last
            if previous is not None:
                self.previous[ed_id] = previous
            hops: dict[str, int] = {}
            for number in self.numbers[ed_id]:
                version = self.moved.get((ed_id, number))
                if version is None:
                    hops[number] = 0  # the version's page
                    continue
                follows = (
                    previous is not None
                    and number in self.numbers[previous]
                    and self.target(previous, number)[1] == version
                    and number in depth
                )
                if follows and depth[number] + 1 < CHAIN:
                    hops[number] = depth[number] + 1
                else:
                    self.stubs.add((ed_id, number))
                    hops[number] = 0
            if ed_id in full:
                depth, last = hops, ed_id

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

    def has_file(self, edition: str, number: str) -> bool:
        """True when the pinned rule's URL in its home locale is a file (its version's page or a
        stub), False when a pattern of ``_redirects`` answers it."""
        return (edition, number) not in self.moved or (edition, number) in self.stubs

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


def indexed_pages(pages: list[str]) -> list[str]:
    """The files Pagefind indexes: the current rules, glossary entries and examples. An older
    version of a rule is found from its current rule (its history); indexing each of them, some
    24,000 pages for the archive, would double the index and its memory for hits that repeat
    the current rule's words."""
    files = []
    for url in pages:
        parts = url.strip("/").split("/")
        if len(parts) == 3 and parts[1] in ("rules", "glossary", "examples"):
            files.append(url)
    return [urllib.parse.unquote(u).lstrip("/") + "/index.html" for u in files]
