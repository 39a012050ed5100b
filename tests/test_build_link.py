"""Linking at archive scale: the glossary terms found once per distinct text and sub-vocabulary
(:class:`kb.build.termfind.TermFinder`) are exactly those a matcher of each edition's whole
vocabulary finds, and the gc pause of a build is undone after it."""

from __future__ import annotations

import gc
import importlib
from pathlib import Path

import pytest

from kb.build.termfind import TermFinder
from kb.text.termmatch import TermMatcher

link_module = importlib.import_module("kb.build.link")

TEXTS = [
    "The attacking creature deals damage. An attacking player attacks.",
    "Each player may pass in succession; players passing in succession end the step.",
    "A player attacks with creatures, then the ring tempts you.",
    "Lifelink and first strike: the player who controls it gains life.",
    "See rule 702.19, trample, and rule 702.2 (deathtouch); the creature dies.",
    "Dying creatures die. The card is put into a graveyard.",
    "Nothing to find here at all.",
]

VOCABULARIES = [
    {"attack": ["Attack"], "player": ["Player"], "creature": ["Creature"]},
    # A longer term shadows a shorter one where both match.
    {
        "attack": ["Attack"],
        "attacking creature": ["Attacking Creature"],
        "player": ["Player"],
        "creature": ["Creature"],
    },
    # A spelling two keys share goes to the first key given: the order matters.
    {"creature": ["Creature"], "beast": ["creature"], "ring": ["The Ring"]},
    {"beast": ["creature"], "creature": ["Creature"], "ring": ["The Ring Tempts You"]},
    {
        "pass in succession": ["Pass in Succession"],
        "dies": ["Dies", "die"],
        "card": ["Card"],
        "first strike": ["First Strike"],
        "lifelink": ["Lifelink"],
    },
    {"dies": ["dies"], "trample": ["Trample"], "deathtouch": ["Deathtouch"], "x": ["'til"]},
]


def _skip(text: str) -> list[tuple[int, int]]:
    from kb.text.references import find_refs

    return [(r.start, r.end) for r in find_refs(text, "en")]


def _expected(vocab: dict[str, list[str]], texts: list[str]) -> list[tuple[list, list]]:
    matcher = TermMatcher(vocab, "en")
    out = []
    for text in texts:
        spans = matcher.find(text, skip=_skip(text))
        out.append(([list(s) for s in spans], list(dict.fromkeys(k for k, _, _ in spans))))
    return out


def test_term_finder_equals_whole_vocabulary_matchers() -> None:
    finder = TermFinder("en")
    for vocab in VOCABULARIES:
        finder.learn(vocab)
    for _round in range(2):  # the second round answers from what the first found
        for vocab in VOCABULARIES:
            assert finder.find_all(vocab, TEXTS, _skip) == _expected(vocab, TEXTS)


def test_term_finder_learns_a_vocabulary_given_late() -> None:
    finder = TermFinder("en")
    finder.learn(VOCABULARIES[0])
    assert finder.find_all(VOCABULARIES[0], TEXTS, _skip) == _expected(VOCABULARIES[0], TEXTS)
    late = VOCABULARIES[1]  # "attacking creature" was not learnt: must still be found
    got = finder.find_all(late, TEXTS, _skip)
    assert got == _expected(late, TEXTS)
    assert ["attacking creature", 4, 22] in got[0][0]


def test_term_finder_japanese_matches_anywhere() -> None:
    vocab = {"priority": ["優先権"], "stack": ["スタック"]}
    texts = ["各プレイヤーは優先権を得る。スタックに置く。", "何もない。"]
    finder = TermFinder("ja")
    got = finder.find_all(vocab, texts, lambda _text: [])
    matcher = TermMatcher(vocab, "ja")
    assert got == [
        ([list(s) for s in matcher.find(t)], list(dict.fromkeys(k for k, _, _ in matcher.find(t))))
        for t in texts
    ]
    assert got[0][1] == ["priority", "stack"]


def test_link_of_shared_editions_equals_whole_vocabulary_matchers(full_kb) -> None:
    """Every rule of the six shared editions and the embedded corpus: the terms the build found
    are those of a matcher of its edition's whole vocabulary, kept where they mean the term
    (:func:`kb.build.termsense.keep`, the same step on both sides)."""
    from kb.build import termsense

    kb = full_kb
    checked = 0
    matchers: dict[tuple[str, int], TermMatcher] = {}
    senses: dict[tuple[str, int], termsense.Senses] = {}
    for ed_id, table in kb.rules.items():
        ed = kb.editions[ed_id]
        own = kb.glossary.get(ed_id)
        newest = kb.glossary_edition(ed.lang)
        glossary = own or (kb.glossary[newest.id] if newest else {})
        # Keyed by the edition whose glossary it is, not by id(): a stored knowledge base may
        # make a new dictionary per read, and a freed one's id can come back for another's.
        key = (ed.lang, ed_id if own else (newest.id if newest else ""))
        if key not in matchers:
            matchers[key] = TermMatcher(link_module._vocabulary(kb, ed.lang, glossary), ed.lang)
            senses[key] = termsense.senses(glossary)
        for rule in table.values():
            found = matchers[key].find(rule.text, skip=[(r.start, r.end) for r in rule.refs])
            spans = termsense.keep(rule.text, [list(s) for s in found], ed.lang, senses[key])
            assert [list(s) for s in rule.term_spans] == [list(s) for s in spans], (
                ed_id,
                rule.number,
            )
            checked += 1
    assert checked > 10_000


def test_build_pauses_the_collector_and_restores_it(tmp_path: Path, monkeypatch) -> None:
    import kb.build as build_module

    seen = []

    def fake(*args, **kwargs):
        seen.append(gc.isenabled())
        raise build_module.BuildError("stop here")

    monkeypatch.setattr(build_module, "_build_locked", fake)
    assert gc.isenabled()
    with pytest.raises(build_module.BuildError):
        build_module.build(tmp_path / "instance")
    assert seen == [False]
    assert gc.isenabled()
