"""Query understanding: question frames per language, and the concepts a question names.

A player's question wraps a few content words in a frame ("what happens if", "que se passe-t-il
si", "〜とは何か"); the frame's words are common in the rules and drown the content, so they are
dropped when the question has other words. The concepts come from the corpus itself, computed at
build time (:func:`concept_table`): each English glossary entry's names with the rules its
definition cites ("Dies ... See rule 700.4"), each titled rule's title ("Lifelink" -> 702.15) and
each term base concept's English names with its rules. A question naming a concept, in any
language (French and Japanese through the term base), raises that concept's rules; how much
depends on how specific the concept is (how few rules contain its words), so "creature" raises
nothing and "lifelink" a lot; the rule opening a concept (702.33a for kicker) leads its siblings.

Players' words also differ from the rules' in form: number words for digits ("zero life"), the
negation prefix ("tapped" / "untapped"), agent nouns ("blockers" / "blocking") and other
inflections that Snowball stems apart ("sacrificed" / "sacrifices", :func:`inflection_stems`)
(:func:`word_variants`). :meth:`Concepts.name_words` gives the words naming a concept, which the
ranking levels across the concept's family so that the rest of a question picks the sibling. Capitalised words inside a sentence are names (:func:`proper_names`),
which spelling repair leaves alone, and a question about tournaments asks for the tournament
rules (:func:`asks_tournament`). A sentence in English is searched in the English fields alone
(:func:`searched_languages`): its words match the partial French and Japanese quotes only by
accident, while a French or Japanese question needs the English fields (cognates, translations).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from kb.model import KnowledgeBase
from kb.search.analysis import terms
from kb.text import stem_en, word_forms

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
#: Query syntax that makes a query more than a question: frames are left alone then.
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


# ---- word variants ---------------------------------------------------------------------

#: Number words a player types where the rules write digits ("zero life": "0 or less life").
_NUMBER_WORDS = {
    "en": ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
    "fr": ["zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix"],
}
#: Share of a word's weight its variants match with: related, not the same word.
VARIANT_WEIGHT = 0.5


def word_variants(word: str, tok: str, lang: str) -> list[tuple[str, float]]:
    """Analysed words the rules use for a question's word ``word`` (analysed ``tok``), with
    their weight: the digit for a number word, and in English the word with its negation
    prefix ("tapped" / "untapped"), the action of an agent noun ("blockers" / "blocking") and
    the stems of the word's other inflections. The caller keeps those the index knows."""
    out: list[tuple[str, float]] = []
    numbers = _NUMBER_WORDS.get(lang, [])
    low = word.lower()
    if low in numbers:
        return [] if (lang, low) == ("fr", "un") else [(str(numbers.index(low)), 1.0)]
    if lang == "en" and tok.isalpha():
        # "tapped" also finds "untapped"; not the other way round: a question saying
        # "noncombat" asks about the opposite of the rules saying "combat".
        if not tok.startswith(("non", "un")):
            out.extend((prefix + tok, VARIANT_WEIGHT) for prefix in ("un", "non"))
        if tok.endswith("er") and len(tok) > 5:
            out.append((tok[:-2], VARIANT_WEIGHT))
        out.extend((s, INFLECTION_WEIGHT) for s in sorted(inflection_stems(low)) if s != tok)
    return out


#: Weight of another inflection's stem: the same word.
INFLECTION_WEIGHT = 1.0


def _bases(word: str) -> set[str]:
    """The possible uninflected forms of an English word ("sacrificed" -> "sacrifice",
    "sacrific"; "tapped" -> "tap"), itself included."""
    out = {word}
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            out |= {base, base + "e"}
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeiosl":
                out.add(base[:-1])
            if suffix in ("ed", "es") and base.endswith("i"):
                out.add(base[:-1] + "y")
            break
    return out


def inflection_stems(word: str) -> set[str]:
    """The stems of every inflection of ``word``'s possible base forms: Snowball stems some
    forms of one verb apart ("sacrificed" -> "sacrif", "sacrifices" -> "sacrific"), so a
    question's form must also find the rules' other forms."""
    if not word.isalpha() or len(word) < 5:
        return set()
    return {stem_en(form) for base in _bases(word) for form in word_forms(base, "en")}


# ---- concepts ----------------------------------------------------------------------------

#: Longest concept name, in analysed words.
MAX_WORDS = 5
#: A concept found in at most this many current English rules counts in full; a commoner one
#: counts in proportion (SPECIFIC / rules containing it).
SPECIFIC = 40


def concept_table(
    kb: KnowledgeBase, titles: dict[str, str], rule_words: dict[str, set[str]]
) -> list[list[Any]]:
    """``[words, rules, df]`` rows: the analysed English name of a concept, the rules it
    names, and in how many current English rules all its words occur.

    ``titles`` maps the canonical number of each titled current English rule to its title,
    ``rule_words`` each current English rule's canonical number to its analysed words.
    """
    names: dict[tuple[str, ...], list[str]] = {}

    def add(name: str, rules: Iterable[str]) -> None:
        words = tuple(terms(name, "en"))
        if words and len(words) <= MAX_WORDS:
            row = names.setdefault(words, [])
            row.extend(r for r in rules if r not in row)

    english = kb.glossary_edition("en")
    for entry in kb.glossary.get(english.id, {}).values() if english else ():
        if entry.rule_refs:
            for name in (entry.term, *entry.aliases):
                add(name, entry.rule_refs)
    for number, title in titles.items():
        if len(number) >= 3:  # not the chapters ("7. Additional Rules")
            add(title, [number])
    for term in kb.terms:
        if term.rules:
            for name in term.en:
                add(name, term.rules)
    index: dict[str, set[str]] = {}
    for number, words in rule_words.items():
        for w in words:
            index.setdefault(w, set()).add(number)
    rows = []
    for words, rules in names.items():
        if not rules:
            continue
        sets = sorted((index.get(w, set()) for w in words), key=len)
        common = set(sets[0]).intersection(*sets[1:]) if sets else set()
        rows.append([list(words), rules, len(common)])
    return rows


class Concepts:
    """The concept table as the searcher asks it, and rule subtrees as document sets."""

    def __init__(self, rows: Sequence[Sequence[Any]], groups: Sequence[str], stop: int) -> None:
        self._rows: dict[tuple[str, ...], tuple[tuple[str, ...], int]] = {
            tuple(words): (tuple(rules), int(df)) for words, rules, df in rows
        }
        #: Rule -> the analysed English words of the concepts naming it ("702.15" ->
        #: {"lifelink"}): words every rule of that family is about (see :meth:`name_words`).
        self._words_of: dict[str, frozenset[str]] = {}
        for words, rules, _df in rows:
            for rule in rules:
                self._words_of[rule] = self._words_of.get(rule, frozenset()) | frozenset(words)
        # Current rule documents by canonical number, sorted for subtree lookups.
        pairs = sorted(
            (g[2:], d)
            for d, g in enumerate(groups[:stop])
            if g.startswith("r:") and g[2:3].isdigit()
        )
        self._numbers = [n for n, _ in pairs]
        self._docs = [d for _, d in pairs]
        #: Current rule document -> its canonical number (every language's text of a rule).
        self.number_of: dict[int, str] = {d: n for n, d in pairs}
        self._subtrees: dict[str, frozenset[int]] = {}

    def find(self, words: Sequence[str]) -> list[tuple[tuple[str, ...], tuple[str, ...], int]]:
        """The concepts named in ``words`` (analysed English), longest first at each place:
        ``(name, rules, df)``."""
        out = []
        i = 0
        n = len(words)
        while i < n:
            for j in range(min(n, i + MAX_WORDS), i, -1):
                key = tuple(words[i:j])
                row = self._rows.get(key)
                if row is not None:
                    out.append((key, row[0], row[1]))
                    i = j
                    break
            else:
                i += 1
        return out

    def name_words(self, root: str) -> frozenset[str]:
        """The analysed English words of the concepts naming rule ``root``."""
        return self._words_of.get(root, frozenset())

    def named(self, words: Sequence[str]) -> tuple[tuple[str, ...], int] | None:
        """The rules and document frequency of the concept whose whole name is ``words``."""
        return self._rows.get(tuple(words))

    def opening(self, root: str) -> frozenset[int]:
        """Current documents of the rule opening ``root``: its first subrule ("702.33a") or,
        for a section or chapter, its first rule ("724.1"), in every language."""
        first = f"{root}a" if "." in root else f"{root}.1"
        found = self._subtrees.get("open:" + first)
        if found is None:
            i = bisect_left(self._numbers, first)
            docs = []
            while i < len(self._numbers) and self._numbers[i] == first:
                docs.append(self._docs[i])
                i += 1
            found = frozenset(docs)
            if len(self._subtrees) < 4096:
                self._subtrees["open:" + first] = found
        return found

    @staticmethod
    def weight(df: int) -> float:
        """How specific a concept is, 0..1: 1 up to :data:`SPECIFIC` rules, less beyond."""
        if df <= SPECIFIC:
            return 1.0
        return max(0.0, math.log(1 + SPECIFIC) / math.log(1 + df)) ** 4

    def subtree(self, root: str) -> frozenset[int]:
        """Current documents of rule ``root`` and every rule below it."""
        found = self._subtrees.get(root)
        if found is not None:
            return found
        numbers = self._numbers
        i = bisect_left(numbers, root)
        docs = []
        size = len(root)
        while i < len(numbers) and numbers[i].startswith(root):
            number = numbers[i]
            if len(number) == size or number[size] == "." or number[size].isalpha():
                docs.append(self._docs[i])
            i += 1
        found = frozenset(docs)
        if len(self._subtrees) < 4096:
            self._subtrees[root] = found
        return found
