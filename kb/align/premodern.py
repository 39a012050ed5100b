"""Before July 2009: the editions of 2003-2009, written in the numbering the rewrite of July 2009
(Magic 2010, "M10") replaced, followed among themselves and linked to the M10 rules by their texts.

The old editions are aligned with one another exactly as M10 editions are (:func:`concordance.align`).
The newest of them is then linked to the first M10 edition (2009-07-11) by text alone, because
the rewrite renumbered everything and moved rules between sections: every old rule is compared
with every M10 rule after the rewrite's renamings ("comes into play" became "enters the
battlefield", "removed from the game" became "exiled", "play a spell" became "cast" ...), with
word weights that favour the words that tell rules apart (a keyword's name over "each", "the").
Old rules whose best match is too weak have no successor. A linked rule takes the lineage of its
M10 rule, so a rule's history runs back to 2003; one without keeps ``<edition>:<number>``.

Measured on the shared editions (2009-05-01 -> 2009-07-11): 1,170 of 1,280 old rules linked
(1,147 before the pass for rewritten rules, :func:`_link_rewrites`); of a hand-checked sample of
110 links (``tests/premodern_links_verified.toml``) 108 are the rule that carries the old text and
2 a smaller piece of a rule M10 split; of the 23 links of the rewrite pass, all read, 20 carry the
old text and 3 a smaller piece. The old rules left without successor are mostly gone (phasing,
mana burn, combat damage on the stack) or merged into an M10 rule another old rule went to.
M10's 115 "Timing and Priority" is old 408.1 "Timing, Priority, and the Stack".
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Protocol

from kb.align.concordance import M10_FIRST_DATE, PRE_M10, align, mask
from kb.knowledge.model import Edition, KnowledgeBase, Rule
from kb.text.rulenum import try_parse

__all__ = ["M10_FIRST", "link_pre_m10", "link_texts"]

#: The first edition in the M10 numbering.
M10_FIRST = M10_FIRST_DATE
#: A link needs at least this score (see :func:`link_texts`); below it the old rule has no successor.
MIN_SCORE = 0.55
#: Added to a candidate's score where the old rule's parent or siblings went next to it.
CONTEXT_BONUS = 0.08
#: How many candidates, by word weights, are scored closely per old rule.
CANDIDATES = 12
#: ... of which this many, the closest by word weights, are compared word by word.
CLOSE_LOOK = 5
#: A text of at least this many words contained in the other counts with this weight.
CONTAINED_MIN_WORDS = 8
CONTAINED_WEIGHT = 0.85
#: A subrule under a linked parent, at the same letter, needs this word-order similarity, or
#: REWRITE_MIN and the same OPENING words (as :func:`concordance.align` tells an edit in place).
IN_PLACE_MIN = 0.45
REWRITE_MIN = 0.3
OPENING = 3
#: A rule M10 rewrote (the last pass, :func:`_link_rewrites`): the score it needs, and the share
#: of each text's weighted words, cross-references aside, that the other must carry.
REWRITTEN_MIN = 0.33
REWRITTEN_SHARE = 0.2


class RuleLike(Protocol):
    """What the linker reads of a rule: a :class:`kb.knowledge.model.Rule` or a reader's record."""

    number: str
    text: str
    title: str | None


# The renamings of the M10 rewrite, applied to the old texts before comparing (on masked,
# lower-case text). Order matters: the longer phrases first.
_RENAMES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), repl)
    for pattern, repl in (
        (r"\bcomes? into play\b", "enters the battlefield"),
        (r"\bcame into play\b", "entered the battlefield"),
        (r"\bcoming into play\b", "entering the battlefield"),
        (r"\bput into play\b", "put onto the battlefield"),
        (r"\bputs? (.{1,40}?) into play\b", r"put \1 onto the battlefield"),
        (r"\binto play\b", "onto the battlefield"),
        (r"\bleaves? play\b", "leaves the battlefield"),
        (r"\bleft play\b", "left the battlefield"),
        (r"\bfrom play\b", "from the battlefield"),
        (r"\bin play\b", "on the battlefield"),
        (r"\bremoved? from the game\b", "exiled"),
        (r"\bremoves? (.{1,40}?) from the game\b", r"exile \1"),
        (r"\bremoved-from-the-game zone\b", "exile zone"),
        (r"\bplay(?:s|ing)? (?=(?:an? |the |that |this )?(?:\w+ )?spells?\b)", "cast "),
        (r"\bplayed (?=(?:an? |the |that |this )?(?:\w+ )?spells?\b)", "cast "),
        (r"\bplay(?:s|ing)? (?=(?:an? |the |that |this )?(?:\w+ )?abilit)", "activate "),
        (r"\bplayed (?=(?:an? |the |that |this )?(?:\w+ )?abilit)", "activated "),
        (r"\bstate-based effects?\b", "state-based actions"),
        (r"\bend phase\b", "ending phase"),
        (r"\bend of turn step\b", "end step"),
        (r"\bat end of turn\b", "at the beginning of the end step"),
    )
)
_WORD = re.compile(r"[a-z0-9#]+(?:'[a-z]+)?")


def _old_text(text: str) -> str:
    text = mask(text)
    for pattern, repl in _RENAMES:
        text = pattern.sub(repl, text)
    return text


def _content(rule: RuleLike, old: bool) -> str:
    text = rule.title or rule.text
    return _old_text(text) if old else mask(text)


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text)


def _vectors(
    texts: Mapping[str, list[str]], idf: Mapping[str, float]
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for key, words in texts.items():
        terms = Counter(words) + Counter(f"{a} {b}" for a, b in itertools.pairwise(words))
        vec = {t: (1 + math.log(n)) * idf.get(t, 0.0) for t, n in terms.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        out[key] = {t: v / norm for t, v in vec.items() if v}
    return out


def _ratio(a: list[str], b: list[str]) -> float:
    """Word-order similarity of an old text ``a`` and an M10 text ``b``; a text that the other
    contains nearly whole counts too (the M10 rule kept the first sentence and moved the example
    out), a little less, and less again when it carries only a small part of the old text."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    ratio = matcher.ratio()
    shorter = min(len(a), len(b))
    if shorter >= CONTAINED_MIN_WORDS:
        matched = sum(block.size for block in matcher.get_matching_blocks())
        # Of the pieces an old rule was split into, the one that carries most of it wins.
        carried = min(1.0, matched / len(a) / 0.6)
        ratio = max(ratio, CONTAINED_WEIGHT * matched / shorter * (0.5 + 0.5 * carried))
    return ratio


def _is_label(rule: RuleLike) -> bool:
    """A heading ("408. Timing of Spells and Abilities") or a subrule that only names its group
    ("408.1. Timing, Priority, and the Stack", "502.9. Flying"): no sentence of its own."""
    if rule.title is not None:
        return True
    text = rule.text.strip()
    return bool(text) and not text.endswith((".", ":", ")", '"', "”")) and len(text.split()) <= 8


def _parent(number: str) -> str:
    num = try_parse(number)
    parent = num.parent if num else None
    return str(parent) if parent else ""


def link_texts(
    old: Mapping[str, RuleLike], new: Mapping[str, RuleLike]
) -> dict[str, tuple[str, float]]:
    """Old number -> (M10 number, score) for every old rule whose text an M10 rule carries.

    Each M10 rule takes at most one old rule. The score (0-1) is the mean of the weighted word
    overlap (cosine of word and word-pair weights) and the word-order similarity (:func:`_ratio`),
    plus a small bonus when the old rule's parent or siblings went next to the M10 rule; equal
    texts score 1. A heading or group label linked through its descendants scores the share of
    its descendants that went under the M10 heading.
    """
    old_words = {n: _tokens(_content(r, True)) for n, r in old.items()}
    new_words = {n: _tokens(_content(r, False)) for n, r in new.items()}
    docs = Counter()
    for words in [*old_words.values(), *new_words.values()]:
        terms = set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}
        docs.update(terms)
    total = len(old_words) + len(new_words)
    idf = {t: math.log(total / n) for t, n in docs.items()}
    old_vec = _vectors(old_words, idf)
    new_vec = _vectors(new_words, idf)
    # Candidates come from the rarer words only (a word in many rules says little and costs most).
    rare = max(20, total // 30)
    index: dict[str, list[str]] = defaultdict(list)
    for number, vec in new_vec.items():
        for term in vec:
            if docs[term] <= rare:
                index[term].append(number)

    # Equal texts (after the renamings), once on each side: linked without further ado.
    pairs: dict[str, tuple[str, float]] = {}
    taken: set[str] = set()
    by_text: dict[tuple[bool, str], list[str]] = defaultdict(list)
    for number, words in new_words.items():
        by_text[(_is_label(new[number]), " ".join(words))].append(number)
    old_by_text = Counter((_is_label(old[n]), " ".join(w)) for n, w in old_words.items())
    for number, words in old_words.items():
        key = (_is_label(old[number]), " ".join(words))
        if words and old_by_text[key] == 1 and len(by_text.get(key, ())) == 1:
            pairs[number] = (by_text[key][0], 1.0)
            taken.add(by_text[key][0])

    scored: dict[str, list[tuple[float, str]]] = {}
    for number, vec in old_vec.items():
        if number in pairs:
            continue
        acc: Counter[str] = Counter()
        for term, weight in vec.items():
            for other in index.get(term, ()):
                acc[other] += weight * new_vec[other][term]
        heading = _is_label(old[number])
        cosines = []
        for other, _ in acc.most_common(CANDIDATES):
            if _is_label(new[other]) != heading:
                continue
            other_vec = new_vec[other]
            cosines.append((sum(w * other_vec.get(t, 0.0) for t, w in vec.items()), other))
        best = [
            ((cosine + _ratio(old_words[number], new_words[other])) / 2, other)
            for cosine, other in sorted(cosines, reverse=True)[:CLOSE_LOOK]
        ]
        scored[number] = sorted(best, reverse=True)

    # First the confident pairs; then rounds where the context decides among close candidates:
    # a candidate under the M10 rule where the old rule's parent, or its siblings' parents, went.
    for floor in (0.75, MIN_SCORE, MIN_SCORE):
        near: dict[str, set[str]] = defaultdict(
            set
        )  # old parent -> parents of its children's links
        for a, (b, _score) in pairs.items():
            near[_parent(a)].add(_parent(b))
        ranked = []
        for number, cands in scored.items():
            if number in pairs:
                continue
            parents = near.get(_parent(number), set()) | {pairs.get(_parent(number), ("",))[0]}
            grandparents = {_parent(p) for p in parents if p}
            for score, other in cands:
                if floor < 0.75 and _parent(other) in parents:
                    score += CONTEXT_BONUS
                elif floor < 0.75 and _parent(_parent(other)) in grandparents:
                    score += CONTEXT_BONUS / 2
                ranked.append((score, number, other))
        ranked.sort(reverse=True)
        for score, number, other in ranked:
            if score < floor:
                break
            if number in pairs or other in taken:
                continue
            pairs[number] = (other, round(min(score, 1.0), 3))
            taken.add(other)
    _link_by_descendants(old, new, pairs, taken)
    _link_in_place(old, new, old_words, new_words, pairs, taken)
    _link_rewrites(old, new, (old_words, new_words), (old_vec, new_vec), idf, scored, pairs, taken)
    return pairs


_SEE = re.compile(r"\bsee (?:also )?(?:rules?|section) #[^.;)]*")


def _share(a: list[str], b: list[str], idf: Mapping[str, float]) -> float:
    """The smaller of the shares of ``a``'s and ``b``'s weighted words that the other carries,
    in order: how much of each text the other keeps."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    kept = sum(
        idf.get(w, 0.0) for m in matcher.get_matching_blocks() for w in a[m.a : m.a + m.size]
    )
    larger = max(sum(idf.get(w, 0.0) for w in a), sum(idf.get(w, 0.0) for w in b))
    return kept / larger if larger else 0.0


def _link_rewrites(
    old: Mapping[str, RuleLike],
    new: Mapping[str, RuleLike],
    words: tuple[Mapping[str, list[str]], Mapping[str, list[str]]],
    vectors: tuple[Mapping[str, dict[str, float]], Mapping[str, dict[str, float]]],
    idf: Mapping[str, float],
    scored: Mapping[str, list[tuple[float, str]]],
    pairs: dict[str, tuple[str, float]],
    taken: set[str],
) -> None:
    """A rule M10 rewrote (101.4's mulligan -> 103.4, 500.2's attack requirements -> 508.1d):
    an old rule left over goes to a free M10 rule when that rule is its best match of all (one
    whose best match another old rule took was merged into it and stays without successor),
    it is that rule's best match among the old rules left, the score reaches REWRITTEN_MIN, and
    each text keeps REWRITTEN_SHARE of the other's weighted words, cross-references aside (a
    shared "see rule 706, 'Copying Objects'" is no shared text)."""
    old_words, new_words = words
    old_vec, new_vec = vectors
    left = [n for n in old if n not in pairs and old_words[n] and not _is_label(old[n])]
    free = [n for n in new if n not in taken and new_words[n] and not _is_label(new[n])]
    index: dict[str, list[str]] = defaultdict(list)
    for number in free:
        for term in new_vec[number]:
            index[term].append(number)
    best: dict[str, tuple[float, str]] = {}
    by_new: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for number in left:
        acc: Counter[str] = Counter()
        for term, weight in old_vec[number].items():
            for other in index.get(term, ()):
                acc[other] += weight * new_vec[other][term]
        cands = [
            ((cosine + _ratio(old_words[number], new_words[other])) / 2, other)
            for other, cosine in acc.most_common(CLOSE_LOOK)
        ]
        for score, other in cands:
            by_new[other].append((score, number))
        everywhere = cands + list(scored.get(number, ()))
        if everywhere:
            best[number] = max(everywhere)
    for number in left:
        score, other = best.get(number, (0.0, ""))
        claims = by_new[other]  # empty when only ``scored`` proposed it: then no one else claims it
        if score < REWRITTEN_MIN or other in taken or (claims and max(claims)[1] != number):
            continue
        a = _tokens(_SEE.sub(" ", _content(old[number], True)))
        b = _tokens(_SEE.sub(" ", _content(new[other], False)))
        if _share(a, b, idf) >= REWRITTEN_SHARE:
            pairs[number] = (other, round(score, 3))
            taken.add(other)


def _link_in_place(
    old: Mapping[str, RuleLike],
    new: Mapping[str, RuleLike],
    old_words: Mapping[str, list[str]],
    new_words: Mapping[str, list[str]],
    pairs: dict[str, tuple[str, float]],
    taken: set[str],
) -> None:
    """A rule rewritten in place: under a linked parent one level up, the M10 subrule with the
    same letter, still free, that keeps enough of the words or opens with the same ones (502.63a
    "Deathtouch is a triggered ability ..." -> 702.2a "Deathtouch is a static ability.")."""
    for number in old:
        num = try_parse(number)
        parent = _parent(number)
        if number in pairs or num is None or num.letter is None or parent not in pairs:
            continue
        new_parent = try_parse(pairs[parent][0])
        if new_parent is None or new_parent.depth != num.depth - 1:
            continue
        target = f"{new_parent}{num.letter}"
        if target not in new or target in taken:
            continue
        a, b = old_words[number], new_words[target]
        score = _ratio(a, b)
        if score >= IN_PLACE_MIN or (score >= REWRITE_MIN and a[:OPENING] == b[:OPENING]):
            pairs[number] = (target, round(score, 3))
            taken.add(target)


def _link_by_descendants(
    old: Mapping[str, RuleLike],
    new: Mapping[str, RuleLike],
    pairs: dict[str, tuple[str, float]],
    taken: set[str],
) -> None:
    """A heading, or a subrule that only names its group ("408.1. Timing, Priority, and the
    Stack"), goes to the M10 heading under which most of its linked descendants went (408.1 ->
    115): the deepest such heading that holds at least 60% of them, two at least."""
    below: dict[str, list[str]] = defaultdict(list)
    for number in old:
        num = try_parse(number)
        for anc in num.ancestors() if num else []:
            below[str(anc)].append(number)
    for number in sorted(old, key=lambda n: len(below.get(n, ()))):
        num = try_parse(number)
        if number in pairs or num is None or num.is_section or not _is_label(old[number]):
            continue
        linked = [pairs[c][0] for c in below.get(number, ()) if c in pairs]
        if len(linked) < 2:
            continue
        for depth in (3, 2, 1):
            votes: Counter[str] = Counter()
            for target in linked:
                node = try_parse(target)
                while node is not None and node.depth > depth:
                    node = node.parent
                if node is not None and node.depth == depth:
                    votes[str(node)] += 1
            if not votes:
                continue
            target, count = votes.most_common(1)[0]
            if (
                count >= 2
                and count >= 0.6 * len(linked)
                and target in new
                and target not in taken
                and _is_label(new[target])
            ):
                pairs[number] = (target, round(count / len(below[number]), 3))
                taken.add(target)
                break


def link_pre_m10(kb: KnowledgeBase) -> list[str]:
    """Give the rules of the pre-M10 editions their lineage; returns notes for the build summary.

    The editions are those :mod:`kb.align.concordance` marked with the numbering ``pre-m10``; the M10
    edition linked to is 2009-07-11, or the oldest M10 English edition present.
    """
    olds = [e for e in kb.editions_of("en") if e.numbering == PRE_M10]
    if not olds:
        return []
    m10s = [e for e in kb.editions_of("en") if e.kind == "full" and e.numbering != PRE_M10]
    m10 = next((e for e in m10s if e.date == M10_FIRST), m10s[0] if m10s else None)
    newest = olds[-1]
    lineage: dict[str, dict[str, str]] = {}
    notes: list[str] = []
    if m10 is None:
        lineage[newest.id] = {n: f"{newest.id}:{n}" for n in kb.rules[newest.id]}
        notes.append("editions before July 2009: no M10 edition to link them to")
    else:
        links = link_texts(kb.rules[newest.id], kb.rules[m10.id])
        m10_rules = kb.rules[m10.id]
        lineage[newest.id] = {
            n: (m10_rules[links[n][0]].lineage or links[n][0]) if n in links else f"{newest.id}:{n}"
            for n in kb.rules[newest.id]
        }
        notes.append(
            f"{newest.id} -> {m10.id}: {len(links)} of {len(kb.rules[newest.id])} old rules "
            "linked to the M10 rule that carries their text, the rest have no successor"
        )
    for older, newer in zip(reversed(olds[:-1]), reversed(olds[1:]), strict=True):
        al = align(kb.rules[older.id], kb.rules[newer.id])
        lineage[older.id] = {
            n: lineage[newer.id][al.pairs[n]] if n in al.pairs else f"{older.id}:{n}"
            for n in kb.rules[older.id]
        }
    _apply(kb, olds, lineage)
    return notes


def _apply(kb: KnowledgeBase, olds: list[Edition], lineage: dict[str, dict[str, str]]) -> None:
    for ed in olds:
        for number, rule in kb.rules[ed.id].items():
            previous = rule.lineage
            lin = lineage[ed.id][number]
            if previous and previous != lin:
                group = kb.concordance.get(previous, {})
                group.pop(ed.id, None)
                if not group:
                    kb.concordance.pop(previous, None)
            rule.lineage = lin
            rule.canonical = None if ":" in lin else lin
            kb.concordance.setdefault(lin, {})[ed.id] = number
    _refresh_changes(kb, olds)


def _refresh_changes(kb: KnowledgeBase, olds: list[Edition]) -> None:
    """The changes of the old editions and of the first M10 edition after them, again, now that
    their lineages are known (as :func:`concordance.compute` fills them for every edition; the
    editions after those are not affected)."""
    from kb.align import concordance

    english = kb.editions_of("en")
    last_old = max(english.index(ed) for ed in olds)
    boundary = next(
        (i for i in range(last_old + 1, len(english)) if english[i].kind == "full"), last_old
    )
    seen: dict[str, Rule] = {}
    full_before = False
    for ed in english[: boundary + 1]:
        for rule in kb.rules.get(ed.id, {}).values():
            lin = concordance.lineage_of(rule)
            rule.change = concordance.change_between(seen.get(lin), rule)
            if rule.change == "created" and not full_before:
                rule.change = "first"
            seen[lin] = rule
        full_before = full_before or ed.kind == "full"
    full = [e for e in english[: boundary + 1] if e.kind == "full"]
    for older, newer in itertools.pairwise(full):
        kb.changes[f"{older.id}..{newer.id}"] = concordance.diff_editions(kb, older.id, newer.id)
