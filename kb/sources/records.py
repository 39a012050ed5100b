"""What a reader returns: plain records of one source file, before any linking.

Readers know formats, not the knowledge base: they turn one file into a :class:`SourceDoc` and
report what they cannot place as :class:`Problem` entries (file, line, why) instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Problem:
    """Something a reader could not place or had to flag; never silently dropped."""

    path: str
    line: int | None
    message: str
    severity: str = "warning"  # "warning" (kept, flagged) or "error" (the file was not read)

    @property
    def where(self) -> str:
        """``file:line`` (or the file alone)."""
        return f"{self.path}:{self.line}" if self.line else self.path

    def __str__(self) -> str:
        return f"{self.where}: {self.severity}: {self.message}"


@dataclass(slots=True)
class RuleRecord:
    """A numbered item as printed: ``number`` is the short key (``117``, ``117.1``, ``117.1a``)."""

    number: str
    text: str
    line: int
    title: str | None = None  # headings (sections and rules such as "117. Timing and Priority")
    examples: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # e.g. "lost-symbol", "typo-number"


@dataclass(slots=True)
class GlossaryRecord:
    """A glossary entry: the term as printed, its aliases and its definition."""

    term: str
    definition: str
    line: int
    aliases: list[str] = field(default_factory=list)
    obsolete: bool = False
    see: list[str] = field(default_factory=list)  # redirects: "See Kicker", "See also …"
    rule_refs: list[str] = field(default_factory=list)  # "See rule 702.33." -> ["702.33"]
    # A translation's heading may name the English entry: 「連繋（れんけい）／Splice」.
    reading: str | None = None  # the Japanese reading (れんけい)
    en_names: list[str] = field(default_factory=list)  # ["Splice"]; "A/B" gives two names
    en_heading: str | None = None  # the English part as printed (for messages)
    sense: int | None = None  # "Draw(2)": the second sense of the English entry


@dataclass(slots=True)
class CommentaryRecord:
    """Prose that explains rules (wiki commentary): not a rule, attached to what it explains."""

    key: str  # stable within the source: "c1", "c2", …
    text: str
    line: int
    heading: str | None = None
    about_rules: list[str] = field(default_factory=list)
    about_terms: list[str] = field(default_factory=list)


@dataclass(slots=True)
class TournamentRecord:
    """One item of the Tournament Rules (e.g. a bullet of MTR 4.2 Tournament Shortcuts)."""

    key: str  # "4.2-1", "4.2-2", …
    section: str  # "4.2"
    text: str
    line: int
    flags: list[str] = field(default_factory=list)


@dataclass(slots=True)
class TermPair:
    """A term pairing harvested from a source (「優先権/Priority」, a French linked term)."""

    lang: str
    term: str
    en: str | None
    line: int


@dataclass(slots=True)
class SourceDoc:
    """Everything one file holds, as records, with where it came from and what it follows.

    ``kind`` is ``"cr"`` (a complete rules text), ``"cr-partial"`` (quotes of some rules),
    ``"mtr"`` (tournament rules) or ``"commentary"`` (prose only). ``date`` is the ISO effective
    date when known; ``numbering`` names the numbering the rule numbers follow (an ISO date of an
    English edition, or a range such as ``"2010-07-01..2019-06-30"``).
    """

    path: str
    lang: str
    kind: str
    format: str
    date: str | None = None
    version: str | None = None
    numbering: str | None = None
    translates: str | None = None  # ISO date of the English edition a translation follows
    title: str | None = None
    rules: list[RuleRecord] = field(default_factory=list)
    glossary: list[GlossaryRecord] = field(default_factory=list)
    commentary: list[CommentaryRecord] = field(default_factory=list)
    tournament: list[TournamentRecord] = field(default_factory=list)
    term_pairs: list[TermPair] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    part: str | None = None  # for a multi-part file (seed 000): "fr" or "en" quote block


class SourceError(Exception):
    """A file that cannot be read at all (empty, binary, unknown format): names file and line."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.problem = Problem(path, line, message, "error")
        super().__init__(str(self.problem))
