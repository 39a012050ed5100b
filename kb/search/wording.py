"""What a question's own wording says, read before any index: whether it asks a question or
for examples, which of its sentences asks (the last; the ones before tell the story), and a
correction written back into it."""

from __future__ import annotations

import re

from kb.search import query as qp

#: Words that make a query about examples ("example priority", "exemple pile", "優先権 例題").
EXAMPLE_WORDS = frozenset(
    {"example", "examples", "exemple", "exemples", "scenario", "scénario", "scenarios"}
)
EXAMPLE_WORDS_JA = ("例題", "実例", "具体例", "サンプル")
#: A query with one of these is a question, not a glossary lookup: the entry is not pinned
#: ("what is priority" asks for a definition, so "what" and "is" are not among them).
QUESTION_WORDS = frozenset(
    {
        *("when", "where", "who", "why", "how", "does", "do", "did", "can", "could", "should"),
        *("would", "will", "quand", "comment", "pourquoi", "qui", "puis-je", "peut", "peux"),
        *("dois", "doit"),
    }
)
RAW_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


def replace_word(text: str, wrong: str, right: str) -> str:
    r"""``text`` with each whole-word ``wrong`` (no word character either side, as the regular
    expression ``(?<!\w)wrong(?!\w)`` finds it) replaced by ``right``: a correction written
    into the question, without compiling a pattern for each new typo (0.3 ms each)."""
    if not wrong:
        return text
    out: list[str] = []
    pos = 0
    size = len(wrong)
    i = text.find(wrong)
    while i >= 0:
        j = i + size
        if (i == 0 or not _is_word_char(text[i - 1])) and (
            j == len(text) or not _is_word_char(text[j])
        ):
            out.append(text[pos:i])
            out.append(right)
            pos = j
            i = text.find(wrong, j)
        else:
            i = text.find(wrong, i + 1)
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def corrected(text: str, corrections: dict[str, str]) -> str:
    """``text`` with every correction (``wrong -> right``) written into it (:func:`replace_word`)."""
    for wrong, right in corrections.items():
        text = replace_word(text, wrong, right)
    return text


def _is_word_char(char: str) -> bool:
    r"""True for what ``\w`` matches in a regular expression: a letter, a digit or ``_``."""
    return char.isalnum() or char == "_"


#: A sentence opening with one of these goes on with the one before it.
_CONTINUING = frozenset({"or", "and", "but", "ou", "et", "mais"})
_SENTENCE_END = re.compile(r"[.?!。？！]+(?=\s|$)")


def final_sentence(content: str, tree: qp.Node) -> int:
    """Index of the first word of ``content``'s last sentence having words, when it has
    several sentences and is plain words (``tree`` a group of them); 0 otherwise."""
    if not isinstance(tree, qp.Group) or tree.required or tree.negative:
        return 0
    ends = [m.end() for m in _SENTENCE_END.finditer(content.rstrip(" .?!。？！"))]
    words = content.split()
    while ends:
        rest = words[len(content[: ends[-1]].split()) :]
        if rest and rest[0].lower() not in _CONTINUING:
            break
        ends.pop()  # "Or tap an already tapped creature?" goes on asking the sentence before
    if not ends:
        return 0
    start = len(content[: ends[-1]].split())
    if start >= len(tree.positive) or len(content.split()) != len(tree.positive):
        return 0
    return start


def about_examples(text: str) -> bool:
    """True if the query asks for executable examples rather than rules."""
    low = text.lower()
    return any(w in EXAMPLE_WORDS for w in RAW_WORD.findall(low)) or any(
        w in text for w in EXAMPLE_WORDS_JA
    )
