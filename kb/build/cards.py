"""The card file of a build (``kb build --cards PATH``): remembered by the instance, read, linked to
the rules of the newest English edition and written into the build's database.

Why apart from the rules' build: cards depend on the rules (the rules each card uses) but no rule
depends on a card, so a changed card file rewrites only the card tables in a copy of the previous
build (:func:`cards_only`), and unchanged rules are not read or linked again. The parsed cards
are kept in the build cache by the digest of the file's bytes.

A card file that cannot be read at all (not JSON, not a card file) is a left-out file: the rules
are built as before, the problem names the file and the byte where reading stopped, ``kb build``
exits with status 3, and the previous build's cards (if any) are kept.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.base import buildcache
from kb.base.buildcache import BuildCache
from kb.base.instance import BuildError

#: How a build's problems mark a left-out file (kb.build.LEFT_OUT_MARK, repeated: no cycle).
LEFT_OUT = ": error: "
CARDS_KEY = "cards"


@dataclass
class CardsOutcome:
    """What the card step did: cards written, problems (``file: error: …``), a note, seconds."""

    count: int = 0
    problems: list[str] = field(default_factory=list)
    note: str = ""
    seconds: float = 0.0
    kept: bool = False  # the previous build's cards were kept (the file could not be read)


def check_cards_path(path: Path | str) -> Path:
    """A path given to ``--cards``, resolved: a readable regular file, else :class:`BuildError`."""
    path = Path(path).expanduser()
    if not path.exists():
        raise BuildError(f"{path}: no such file (card file not added)")
    if not path.is_file():
        raise BuildError(f"{path}: is not a file of cards (card file not added)")
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise BuildError(f"{path}: cannot read: {exc.strerror} (card file not added)") from None
    return path.resolve()


def remembered_cards(corpus_json: Path) -> Path | None:
    """The card file an earlier ``kb build --cards`` gave this instance (``corpus.json``)."""
    try:
        data = json.loads(corpus_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = data.get(CARDS_KEY)
    return Path(found) if found else None


def file_digest(path: Path) -> str:
    """Digest of a card file's bytes (what decides whether the cards are built again)."""
    h = hashlib.blake2b(digest_size=20)
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                h.update(chunk)
    except OSError as exc:
        raise BuildError(f"{path}: cannot read: {exc.strerror}") from exc
    return h.hexdigest()


def combined_hash(rules_hash: str, cards_digest: str | None) -> str:
    """The build's content hash: the rules' alone without a card file."""
    if not cards_digest:
        return rules_hash
    return hashlib.sha256(f"{rules_hash}+cards:{cards_digest}".encode()).hexdigest()


_FATAL = ("malformed or truncated", "compressed data damaged", "no cards")


def _problem_line(problem: Any) -> str:
    """A reader's problem as a build problem: a skipped card is a warning (the file was read);
    a file read only in part is an error, which makes it a left-out file (exit status 3)."""
    fatal = problem.message.startswith(_FATAL)
    return f"{problem.where}: {'error' if fatal else 'warning'}: {problem.message}"


def _read(path: Path, digest: str, cache: BuildCache | None) -> tuple[list[Any], list[str], str]:
    """The cards of a file (from the cache when its bytes were read before), the problems as
    ``file: severity: …`` lines and the format; :class:`CardFileError` if it is no card file."""
    from kb.sources.cards import read_cards

    key = buildcache.digest(buildcache.code_digest("cards"), digest)
    found = cache.get("cards", key) if cache is not None else None
    if found is not None:
        return found["cards"], found["problems"], found["format"]
    result = read_cards(path)
    problems = [_problem_line(p) for p in result.problems]
    if cache is not None and not any(LEFT_OUT in p for p in problems):
        cache.put(
            "cards",
            key,
            {
                "cards": result.cards,  # pickled as they are: slotted dataclasses
                "problems": problems,
                "format": result.format,
            },
        )
    return result.cards, problems, result.format


def add_cards(
    db_path: Path,
    cards_path: Path,
    digest: str,
    cache: BuildCache | None,
    previous_db: Path | None,
) -> CardsOutcome:
    """Read the card file and write the card tables into ``db_path`` (a staging database).

    The cards are linked to the rules of that database's newest English edition. A file that is
    not a card file keeps ``previous_db``'s card tables and is reported as left out.
    """
    from kb.cards.names import fold
    from kb.cards.rules_used import RuleIndex, rules_used
    from kb.sources.cards import CardFileError
    from kb.store import open_kb
    from kb.store.cards import copy_cards, write_cards

    started = time.process_time()
    outcome = CardsOutcome()
    try:
        cards, problems, fmt = _read(cards_path, digest, cache)
    except CardFileError as exc:
        outcome.problems.append(f"{exc.problem.where}{LEFT_OUT}{exc.problem.message}")
        if previous_db is not None and previous_db.is_file():
            with _writing(db_path) as conn:
                outcome.kept = copy_cards(conn, previous_db)
        outcome.note = "cards: the card file could not be read" + (
            "; the previous build's cards are kept" if outcome.kept else ""
        )
        return outcome
    outcome.problems.extend(problems)
    if any(LEFT_OUT in p for p in problems) and previous_db is not None and previous_db.is_file():
        with _writing(db_path) as conn:  # read in part: the previous build's cards are kept
            outcome.kept = copy_cards(conn, previous_db)
        if outcome.kept:
            outcome.note = "cards: the card file was read in part; the previous build's are kept"
            return outcome
    kb = open_kb(db_path)
    try:
        edition = kb.newest("en")
        index = RuleIndex.from_kb(kb, edition.id if edition else None)
        uses = [[tuple(link) for link in rules_used(card, index)] for card in cards]
        examples = [(e.id, e.title, e.markdown) for e in kb.examples]
        spans = _card_spans(kb, cards, fold)
    finally:
        kb.close()
    meta = {
        "source": str(cards_path),
        "digest": digest,
        "format": fmt,
        "count": str(len(cards)),
        "edition": edition.id if edition else "",
    }
    with _writing(db_path) as conn:
        write_cards(conn, cards, uses, meta, fold, examples, spans)
    outcome.count = len(cards)
    outcome.seconds = time.process_time() - started
    outcome.note = (
        f"cards: {len(cards)} from {cards_path.name} ({fmt}), {outcome.seconds:.1f} s CPU"
    )
    return outcome


def _card_spans(kb: Any, cards: list[Any], fold: Any) -> list[tuple[str, str, str, int, int, int]]:
    """Card names in the newest edition of each language: ``(edition, kind, key, start, end,
    card)`` with kind ``rule`` (key: the number), ``example`` (``number#i``) or ``glossary``."""
    from kb.cards.mentions import find_card_names

    english: dict[str, int] = {}
    every: dict[str, int] = {}
    for i, card in enumerate(cards):
        for lang in ("en", "fr", "ja"):
            for name in card.names(lang):
                key = fold(name)
                every.setdefault(key, i)
                if lang == "en" and len(name.split()) >= 2:
                    english.setdefault(key, i)
    out: list[tuple[str, str, str, int, int, int]] = []
    for lang in ("en", "fr", "ja"):
        edition = kb.newest(lang)
        if edition is None:
            continue
        names = english if lang == "en" else every
        glossary = list(kb.glossary.get(edition.id, {}).values())
        terms = {fold(e.term) for e in glossary} | {fold(a) for e in glossary for a in e.aliases}
        rules = list(kb.rules.get(edition.id, {}).values())
        terms |= {fold(r.title) for r in rules if r.title}
        for rule in rules:
            texts = [("rule", rule.number, rule.text)]
            texts += [("example", f"{rule.number}#{i}", t) for i, t in enumerate(rule.examples)]
            for kind, key, text in texts:
                for start, end, card in find_card_names(text, lang, names, fold, terms):
                    out.append((edition.id, kind, key, start, end, card))
        for entry in glossary:
            for start, end, card in find_card_names(entry.definition, lang, names, fold, terms):
                out.append((edition.id, "glossary", entry.key, start, end, card))
    return out


class _writing:
    """A read-write connection committed on success (the staging database is not published yet)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> sqlite3.Connection:
        self.conn = sqlite3.connect(self.path)
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        return self.conn

    def __exit__(self, kind: Any, *rest: Any) -> None:
        if kind is None:
            self.conn.commit()
        self.conn.close()


def copy_build(previous: Path, staging: Path, skip: tuple[str, ...]) -> None:
    """Copy a published build's files into a staging folder (the database copied, the search
    index hard-linked where the file system allows: it is never modified)."""
    for item in previous.iterdir():
        if item.name in skip:
            continue
        target = staging / item.name
        if item.is_dir():
            shutil.copytree(item, target, copy_function=_link_or_copy)
        else:
            shutil.copy2(item, target)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        Path(dst).hardlink_to(src)
    except OSError:
        shutil.copy2(src, dst)


def set_content_hash(db_path: Path, digest: str) -> None:
    """Give a copied database its new build's content hash (what pages' ETags are made of)."""
    with _writing(db_path) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'content_hash'", (digest,))


def stale_hash(instance: Path, rules_hash: str, corpus_json: Path) -> str:
    """The content hash a build of the instance's inputs would have now (rules and cards)."""
    card_file = remembered_cards(corpus_json)
    if card_file is None:
        return rules_hash
    if not card_file.is_file():
        return ""
    return combined_hash(rules_hash, file_digest(card_file))


def into_report(
    report: Any,
    db: Path,
    card_file: Path | None,
    cards_digest: str | None,
    cache: Any,
    previous: Path | None,
) -> None:
    """Write the card tables into the staging database ``db`` and say so in the build's ``report``
    (a :class:`kb.build.BuildReport`; nothing without a card file)."""
    if card_file is None or cards_digest is None:
        return
    t = time.process_time()
    old = previous / db.name if previous is not None else None
    outcome = add_cards(db, card_file, cards_digest, cache, old)
    report.timings["cards"] = time.process_time() - t
    report.problems.extend(outcome.problems)
    report.notes.append(outcome.note)
    report.totals["cards"] = outcome.count


def is_card_problem(problem: str, info: dict[str, Any]) -> bool:
    """Whether a previous build's problem was about its card file (replaced by this build's)."""
    return bool(info.get("cards_file")) and problem.startswith(str(info["cards_file"]))
