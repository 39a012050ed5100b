"""What a question's own wording says, read before any index.

A player's question wraps a few content words in a frame ("what happens if", "que se passe-t-il
si", "〜とは何か"); the frame's words are common in the rules and drown the content, so they are
dropped when the question has other words (:func:`strip_frames`). The wording also tells whether
it asks a question or for examples (:func:`about_examples`), when a player may act
(:func:`asks_when`) or about tournaments (:func:`asks_tournament`), which of its sentences asks
(the last; the ones before tell the story: :func:`final_sentence`), which of its words are names
(capitalised inside a sentence: :func:`proper_names`, which spelling repair leaves alone), and
in which languages' fields it is searched (:func:`searched_languages`); a correction is written
back into it (:func:`corrected`). The concepts it names and the rules' forms of its words are
:mod:`kb.search.understand`'s.
"""

from __future__ import annotations

import re
from bisect import bisect_left

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

#: Question frames, matched on the lower-cased query (whole words); removed when something
#: remains. Phrases first: "se passe" would otherwise read as the French "passer" (to pass).
_FRAMES = {
    "en": [
        r"what does it mean(?: to| when| if| that| for)?",
        r"what is meant by",
        r"(?:is|are) there (?:a |an |any )?rules? (?:about|for|on|that says?)",
        r"what (?:is|are) the rules? (?:for|about|on)",
        r"(?:what|which) rules? (?:says?|covers?|applies|handles?)",
        r"i(?:'m| am) (?:wondering|confused|not sure)(?: about| if| whether| how| why)?",
        r"what (?:happens|would happen|will happen)(?: to)?(?: if| when)?",
        r"what (?:is|are|does|do)(?: a| an| the)?",
        r"how (?:does|do|can|many|much)(?: i| you| a| an| the)?",
        r"is it (?:possible|legal|allowed) to",
        r"(?:can|could|may|must|should|do|does|did|will|would) (?:i|you|we|my opponent|a player)",
        r"(?:work|works|mean|means|do)\s*\??$",
        r"(?:work|works)(?= (?:with|against|on|for|if|when|during|in)\b)",
        r"difference between",
        r"(?:quick )?question",
        r"please|thanks|thank you|hi|hello|hey|okay|ok|really|actually|exactly|basically",
    ],
    "fr": [
        r"que se passe-t-il(?: si| quand| lorsque| lorsqu'| s')?",
        r"qu'est-ce qui se passe(?: si| quand)?",
        r"qu'est-ce que(?: c'est)?",
        r"qu'est-ce qu'",
        r"est-ce que",
        r"est-ce qu'",
        r"comment (?:fonctionne|fonctionnent|marche|marchent|ça marche|ca marche)",
        r"ça marche",
        r"(?:peut|peuvent|doit|doivent|faut)-(?:on|il|elle|ils|elles)",
        r"(?:puis|dois)-je",
        r"que (?:veut dire|signifie)",
        r"(?:ça|ca) veut dire quoi",
        r"est-il possible de",
        r"a-t-on le droit de",
        r"(?:que dit|quelle est) la règle(?: sur| pour| concernant)?",
        r"quels? sont",
        r"quelles? sont",
        r"se passe(?:-t-il)?",
        r"(?:petite )?question",
        r"s'il vous plaît|s'il te plaît|svp|merci|bonjour|salut|vraiment|exactement",
    ],
    "ja": [
        r"(?:って|とは)どういう(?:意味|こと)(?:ですか|か)?",
        r"について(?:教えてください|知りたい)?",
        r"教えてください",
        r"とは何(?:か|ですか)?",
        r"とは",
        r"どうなる(?:の|のか|んですか|ですか)?",
        r"(?:でき|使え)(?:る|ます)(?:か|の)?",
        r"ですか",
        r"ますか",
        r"[？?]",
        r"すみません|質問です|質問があります|お願いします|ちなみに",
    ],
}
#: Each language's frames as one pattern. A Latin frame starts a word: the test is made once
#: before the alternatives, not in each (a third of the time of the same pattern).
_FRAME_RE = {
    lang: re.compile(
        "|".join(f"(?:{p})" for p in patterns)
        if lang == "ja"
        else "(?<![\\w-])(?:" + "|".join(f"(?:{p})(?:(?<=')|(?![\\w-]))" for p in patterns) + ")",
        re.IGNORECASE,
    )
    for lang, patterns in _FRAMES.items()
}
#: Frames that ask *when* a player may act ("when can I", "quand puis-je", "いつ…できる"): the
#: rule saying when players may cast, activate and take actions (117.1) answers them in part.
#: A passive ("いつ解決される", when is it resolved) asks when something happens: not one.
_WHEN_CAN = re.compile(
    r"\bwhen (?:can|may|could|do|should) (?:i|you|we|a player|players|my opponent)\b"
    r"|\bquand (?:puis-je|peut-on|peut-il|peut-elle|peuvent|est-ce que (?:je|l'on|on) peu)"
    r"|\bà quel moment\b|いつ.*(?:でき|られ|(?<!さ)れる)|(?:でき|られ)る(?:タイミング|時)",
    re.IGNORECASE,
)
WHEN_RULES = ("117.1",)


def asks_when(text: str) -> bool:
    """True if ``text`` asks when a player may do something."""
    return bool(_WHEN_CAN.search(text.replace("’", "'")))


#: Words asking for the tournament rules rather than the game's ("raccourcis de tournoi").
_TOURNAMENT = re.compile(
    r"(?i)\b(?:tournaments?|tournois?|mtr|judges?|juges?|arbitres?|infractions?)\b"
    r"|トーナメント|ジャッジ|大会"
)


def asks_tournament(text: str) -> bool:
    """True if ``text`` asks about tournament rules (the MTR) rather than the game's rules."""
    return bool(_TOURNAMENT.search(text))


def searched_languages(detected: str | None, scope: tuple[str, ...]) -> tuple[str, ...]:
    """The languages of ``scope`` whose fields a query is searched in. A sentence in English
    (``detected``: :func:`kb.search.analysis.detect_lang` found English words around its
    content) goes to the English fields alone: every rule has an English text, and its words
    match the French and Japanese texts only by accident. A bare term ("priority") still finds
    its translations. A French question goes to the French and English fields: its reader reads
    those, and the Japanese quotes matched only its translated names (tune MRR fr 0.730 ->
    0.737, test 0.758 -> 0.777). A Japanese question is searched everywhere: the French texts of
    a rule add to its English one's score (:data:`kb.search.ranking.LANG_FUSION`; without them
    ja fell 0.777 -> 0.677)."""
    if detected == "en" and "en" in scope:
        return ("en",)
    if detected == "fr" and "fr" in scope and "en" in scope:
        return tuple(code for code in scope if code in ("fr", "en"))
    return scope


#: Query syntax that makes a query more than a question: frames are left alone then.
_SYNTAX = re.compile(r'["*()]|\b(?:AND|OR|NOT)\b|(?:^|\s)-\w')


def strip_frames(text: str, lang: str | None) -> str:
    """``text`` without the question frames of ``lang`` (of every language when None), if
    content remains; the text as is when it uses query syntax or is nothing but a frame."""
    if _SYNTAX.search(text):
        return text
    out = text.replace("’", "'")
    for code in (lang,) if lang in _FRAME_RE else tuple(_FRAME_RE):
        out = _FRAME_RE[code].sub(" ", out)
    out = " ".join(out.split())
    return out if re.search(r"\w", out) else text


#: A capitalised word inside a sentence: a card's or a person's name, not a misspelt rules word.
_NAME = re.compile(r"(?<=[^\W\d_])[ ,;:'’/-]+([A-Z][^\W\d_]+)")


def proper_names(text: str) -> frozenset[str]:
    """Capitalised words that do not open a sentence ("Wrath of God", "Blood Artist"): spelling
    repair leaves them alone ("Wrath" is no typo of "rath"). A query in capitals has none."""
    if text.upper() == text:
        return frozenset()
    return frozenset(m.group(1) for m in _NAME.finditer(text))


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
    words = content.split()
    if len(words) != len(tree.positive):
        return 0
    # Where each word starts, found in order (the words are the split's, once).
    starts = []
    pos = 0
    for word in words:
        pos = content.find(word, pos)
        starts.append(pos)
        pos += len(word)
    ends = [m.end() for m in _SENTENCE_END.finditer(content.rstrip(" .?!。？！"))]
    while ends:
        start = bisect_left(starts, ends.pop())  # the first word after that sentence's end
        if start < len(words) and words[start].lower() not in _CONTINUING:
            return start
        # "Or tap an already tapped creature?" goes on asking the sentence before.
    return 0


def about_examples(text: str) -> bool:
    """True if the query asks for executable examples rather than rules."""
    low = text.lower()
    return any(w in EXAMPLE_WORDS for w in RAW_WORD.findall(low)) or any(
        w in text for w in EXAMPLE_WORDS_JA
    )
