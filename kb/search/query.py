"""The query language: words, ``"phrases"``, ``AND``/``OR``/``NOT`` (or ``-word``), ``prefix*``.

:func:`parse` turns any text into a small tree and never raises: an unbalanced quote closes at
the end, stray parentheses are dropped, unknown ``field:value`` syntax searches both words. What it
had to repair is reported in :attr:`Parsed.notes` (:class:`kb.search.notes.Note`), for the user.

Words next to each other are alternatives ranked by relevance (a player's question is not a
conjunction of all its words); ``AND`` makes both required, ``NOT``/``-`` excludes.

``prefix*`` is a search, not an error: readers of the rules look up a word's family ("trampl*":
trample, trampling) or a word they half remember, and the vocabulary expands it (the most
frequent words starting with it, capped by the compiler). A prefix no word starts with finds
no results, and says so (:func:`nothing_found`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kb.search.notes import Note, note, unique

#: Longest query we read; the rest is cut off (with a note).
MAX_QUERY = 500
#: Fewest characters before ``*`` in a prefix query, and most words a prefix may expand to.
MIN_PREFIX = 3
MAX_NODES = 64


@dataclass(frozen=True, slots=True)
class Word:
    """A word as typed (``prefix`` if it ended with ``*``)."""

    text: str
    prefix: bool = False


@dataclass(frozen=True, slots=True)
class Phrase:
    """Words in quotes: they must appear together, in order."""

    text: str


@dataclass(frozen=True, slots=True)
class Group:
    """Items side by side: ``positive`` ranked together, ``required`` all present, ``negative`` out."""

    positive: tuple[Node, ...] = ()
    required: tuple[Node, ...] = ()
    negative: tuple[Node, ...] = ()


@dataclass(frozen=True, slots=True)
class AnyOf:
    """``a OR b``: either."""

    items: tuple[Node, ...]


Node = Word | Phrase | Group | AnyOf


@dataclass(slots=True)
class Parsed:
    """A parsed query: the tree (None if nothing searchable is left) and repair notes."""

    tree: Node | None
    notes: list[Note] = field(default_factory=list)


_TOKEN = re.compile(r'"[^"]*"?|\(|\)|[^\s()"]+')
_OPERATORS = {"AND", "OR", "NOT", "&&", "||"}
#: What makes a query more than plain words side by side: quotes, parentheses, a prefix's or a
#: stray ``*``, ``field:`` syntax, an exclusion, an operator.
_SYNTAX = re.compile(r'["()*:]|(?:^|\s)-|\b(?:AND|OR|NOT)\b|&&|\|\|')


def _lex(text: str, notes: list[Note]) -> list[str]:
    tokens: list[str] = []
    for raw in _TOKEN.findall(text):
        if raw.startswith('"') and (len(raw) == 1 or not raw.endswith('"')):
            notes.append(note("unbalanced_quote"))
            raw = raw + '"'
        if ":" in raw and not raw.startswith('"') and not re.match(r"^\d", raw):
            notes.append(note("field_syntax", token=raw))
            tokens.extend(p for p in raw.split(":") if p)
            continue
        tokens.append(raw)
    return tokens


class _Parser:
    def __init__(self, tokens: list[str], notes: list[Note]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.notes = notes
        self.nodes = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def parse_or(self, depth: int) -> Node | None:
        items = [self.parse_seq(depth)]
        while self.peek() in ("OR", "||"):
            self.take()
            items.append(self.parse_seq(depth))
        kept = tuple(i for i in items if i is not None)
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else AnyOf(kept)

    def parse_seq(self, depth: int) -> Node | None:
        positive: list[Node] = []
        required: list[Node] = []
        negative: list[Node] = []
        pending_and = False
        while True:
            tok = self.peek()
            if tok is None or tok in ("OR", "||"):
                break
            if tok == ")":
                if depth > 0:
                    break
                self.take()
                self.notes.append(note("unmatched_paren"))
                continue
            if tok in ("AND", "&&"):
                self.take()
                if positive:
                    required.append(positive.pop())
                pending_and = True
                continue
            negate = False
            if tok == "NOT" or (tok.startswith("-") and len(tok) > 1 and not tok[1:2].isdigit()):
                negate = True
                if tok == "NOT":
                    self.take()
                else:
                    self.tokens[self.pos] = tok[1:]
            node = self.parse_atom(depth)
            if node is None:
                continue
            if negate:
                negative.append(node)
            elif pending_and:
                required.append(node)
            else:
                positive.append(node)
            pending_and = False
        if not (positive or required or negative):
            return None
        if len(positive) == 1 and not required and not negative:
            return positive[0]
        return Group(tuple(positive), tuple(required), tuple(negative))

    def parse_atom(self, depth: int) -> Node | None:
        if self.peek() is None:
            return None
        tok = self.take()
        if tok == "(":
            node = self.parse_or(depth + 1)
            if self.peek() == ")":
                self.take()
            else:
                self.notes.append(note("unclosed_paren"))
            return node
        if tok in _OPERATORS:
            return None
        self.nodes += 1
        if self.nodes > MAX_NODES:
            if self.nodes == MAX_NODES + 1:
                self.notes.append(note("too_many_words", limit=MAX_NODES))
            return None
        if tok.startswith('"'):
            inner = tok.strip('"').strip()
            return Phrase(inner) if inner else None
        if tok.endswith("*"):
            stem = tok.rstrip("*")
            if len(stem) < MIN_PREFIX:
                self.notes.append(note("short_wildcard", token=tok, min=MIN_PREFIX))
                return None
            return Word(stem, prefix=True)
        tok = tok.replace("*", "")
        return Word(tok) if tok else None


def parse(text: str) -> Parsed:
    """Parse a cleaned query text (see :func:`kb.search.analysis.clean_query`)."""
    if len(text) <= MAX_QUERY and not _SYNTAX.search(text):
        # Plain words (most queries): the tree the parser would make, without walking it.
        plain = text.split()
        if len(plain) <= MAX_NODES:
            if len(plain) > 1:
                return Parsed(Group(tuple(map(Word, plain))))
            return Parsed(Word(plain[0]) if plain else None)
    return parse_syntax(text)


def parse_syntax(text: str) -> Parsed:
    """:func:`parse` by the parser, whatever the text (plain words included: tests compare)."""
    notes: list[Note] = []
    if len(text) > MAX_QUERY:
        notes.append(note("query_cut", limit=MAX_QUERY))
        text = text[:MAX_QUERY]
    parser = _Parser(_lex(text, notes), notes)
    tree = parser.parse_or(0)
    while parser.peek() is not None:  # a stray ')' at top level stops parse_or; keep going
        parser.take()
        parser.notes.append(note("unmatched_paren"))
        more = parser.parse_or(0)
        if more is not None:
            tree = more if tree is None else Group((tree, more))
    return Parsed(tree, unique(notes))


def nothing_found(text: str) -> Note:
    """Why a query that compiled to no search found nothing: a wildcard no word of the rules
    starts with (or one too short to search) finds "no results"; a query of only common words
    or exclusions has "nothing to search for"."""
    parsed = parse(text)
    wildcard = any(n.code == "short_wildcard" for n in parsed.notes) or any(
        isinstance(leaf, Word) and leaf.prefix for leaf in words(parsed.tree)
    )
    return note("no_results") if wildcard else note("nothing_to_search")


def words(node: Node | None) -> list[Word | Phrase]:
    """The leaves of a tree (words and phrases), left to right."""
    if node is None:
        return []
    if isinstance(node, Word | Phrase):
        return [node]
    if isinstance(node, AnyOf):
        return [leaf for item in node.items for leaf in words(item)]
    return [leaf for item in (*node.positive, *node.required) for leaf in words(item)]


def has_exclusions(node: Node | None) -> bool:
    """True if ``node`` excludes anything (``-word`` or ``NOT word``, at any depth)."""
    return bool(exclusions(node))


def exclusions(node: Node | None) -> list[Node]:
    """The excluded items of ``node``, at any depth, left to right."""
    if node is None or isinstance(node, Word | Phrase):
        return []
    if isinstance(node, AnyOf):
        return [n for item in node.items for n in exclusions(item)]
    inner = [n for item in (*node.positive, *node.required) for n in exclusions(item)]
    return [*node.negative, *inner]


def kept_text(node: Node | None, text: str) -> str:
    """``text`` as what its query looks for: the text itself, or, if ``node`` excludes words,
    its searched words and phrases only. What is translated through the term base is this:
    an excluded "priority" must not come back as a wanted "優先権"."""
    return leaf_text(node) if node is not None and has_exclusions(node) else text


def leaf_text(node: Node) -> str:
    """The words of ``node`` as one text (an excluded item's, to translate and exclude too)."""
    return " ".join(leaf.text for leaf in words(node))


def is_simple(node: Node | None) -> bool:
    """True for plain words side by side (no operator, phrase or prefix): what typos apply to."""
    if isinstance(node, Word):
        return not node.prefix
    if isinstance(node, Group):
        return not node.required and not node.negative and all(is_simple(n) for n in node.positive)
    return False
