"""Concordance on small hand-made editions: renumbering, edits, creations, deletions, translations."""

from __future__ import annotations

from kb.align.concordance import align, change_between, compute, diff_editions, mask
from kb.knowledge.model import Edition, KnowledgeBase, Rule
from kb.text.rulenum import parse


def _rule(ed: str, number: str, text: str = "", title: str | None = None, lang: str = "en") -> Rule:
    depth = parse(number).depth
    return Rule(ed, lang, number, ("section", "rule", "subrule", "subrule")[depth], text, title)


def _edition(
    kb: KnowledgeBase, ed_id: str, date: str | None, rules: list[Rule], **kw: object
) -> None:
    lang = ed_id[:2]
    kb.editions[ed_id] = Edition(
        ed_id, lang, date, kw.pop("kind", "full"), ed_id, [f"{ed_id}.txt"], **kw
    )  # type: ignore[arg-type]
    kb.rules[ed_id] = {r.number: r for r in rules}


OLD = "en-2019-06-14"
NEW = "en-2019-07-12"


def _two_editions() -> KnowledgeBase:
    kb = KnowledgeBase()
    _edition(
        kb,
        OLD,
        "2019-06-14",
        [
            _rule(OLD, "1", title="Game Concepts"),
            _rule(OLD, "115", title="Special Actions"),
            _rule(OLD, "115.2a", 'Playing a land is a special action. See rule 305, "Lands."'),
            _rule(OLD, "116", title="Timing and Priority"),
            _rule(
                OLD,
                "116.3b",
                "The active player receives priority after a spell or ability (other than a mana ability) resolves.",
            ),
            _rule(
                OLD,
                "116.3d",
                "If a player has priority and chooses not to take any actions, that player passes. If any mana is in that player's mana pool, he or she announces what mana is there.",
            ),
            _rule(
                OLD,
                "116.5",
                "Each time a player would receive priority, the game first performs all applicable state-based actions. See rule 116.3.",
            ),
            _rule(OLD, "116.9", "A rule about ante that was removed entirely from the game."),
        ],
    )
    _edition(
        kb,
        NEW,
        "2019-07-12",
        [
            _rule(NEW, "1", title="Game Concepts"),
            _rule(NEW, "111", title="Tokens"),
            _rule(NEW, "116", title="Special Actions"),
            _rule(NEW, "116.2a", 'Playing a land is a special action. See rule 305, "Lands."'),
            _rule(NEW, "117", title="Timing and Priority"),
            _rule(
                NEW,
                "117.3b",
                "The active player receives priority after a spell or ability (other than a mana ability) resolves.",
            ),
            _rule(
                NEW,
                "117.3d",
                "If a player has priority and chooses not to take any actions, that player passes. If any mana is in that player's mana pool, they announce what mana is there.",
            ),
            _rule(
                NEW,
                "117.5",
                "Each time a player would receive priority, the game first performs all applicable state-based actions, as a single event. See rule 117.3.",
            ),
            _rule(NEW, "117.10", "A brand new rule about something else entirely."),
        ],
    )
    return kb


def test_mask_hides_references_and_pronoun_change() -> None:
    assert mask("See rule 116.3b.") == mask("See rule 117.3b.")
    assert mask("he or she announces") == mask("they announce".replace("announce", "announces"))
    assert mask("“Lands.”") == mask('"Lands."')


def test_align_follows_the_renumbering() -> None:
    kb = _two_editions()
    al = align(kb.rules[OLD], kb.rules[NEW])
    assert al.pairs["116"] == "117"
    assert al.pairs["115"] == "116"
    assert al.pairs["116.3b"] == "117.3b"
    assert al.pairs["115.2a"] == "116.2a"
    assert al.pairs["116.5"] == "117.5"  # fuzzy: text edited and reference renumbered
    assert al.shifts[116] == 117 and al.shifts[115] == 116
    assert "116.9" not in al.pairs


def test_compute_canonical_changes_and_lists() -> None:
    kb = _two_editions()
    compute(kb)
    assert kb.rules[OLD]["116.3b"].canonical == "117.3b"
    assert kb.rules[OLD]["115.2a"].canonical == "116.2a"
    assert kb.rules[OLD]["116.9"].canonical is None  # deleted since
    assert kb.rules[NEW]["117.3b"].change == "moved"
    assert kb.rules[NEW]["117.3d"].change == "edited"  # "he or she" -> "they" is a real edit
    assert kb.rules[NEW]["117.5"].change == "edited"
    assert kb.rules[NEW]["117.10"].change == "created"
    assert kb.rules[NEW]["1"].change == "same"
    kinds = {(c.change, c.old, c.new) for c in diff_editions(kb, OLD, NEW)}
    assert ("deleted", "116.9", None) in kinds
    assert ("created", None, "117.10") in kinds
    assert ("moved", "116.3b", "117.3b") in kinds
    assert ("edited", "116.5", "117.5") in kinds
    assert ("edited", "116.3d", "117.3d") in kinds
    assert not any(c[0] == "same" for c in kinds)
    assert kb.concordance["117.3b"] == {OLD: "116.3b", NEW: "117.3b"}
    history = kb.history("117.3b", "en")
    assert [(h["edition"], h["number"]) for h in history] == [(OLD, "116.3b"), (NEW, "117.3b")]


def test_translation_follows_its_english_edition_by_number() -> None:
    kb = _two_editions()
    _edition(
        kb,
        "fr-2019-06-14",
        "2019-06-14",
        [_rule("fr-2019-06-14", "116.3b", "Le joueur actif reçoit la priorité…", lang="fr")],
        translates=OLD,
    )
    compute(kb)
    assert kb.rules["fr-2019-06-14"]["116.3b"].canonical == "117.3b"


def test_partial_quote_placed_by_the_editions_it_fits() -> None:
    kb = _two_editions()
    _edition(
        kb,
        "en-quote",
        None,
        [_rule("en-quote", "116.3b", kb.rules[OLD]["116.3b"].text)],
        kind="partial",
    )
    notes = compute(kb)
    assert kb.editions["en-quote"].fits == [OLD]
    assert kb.rules["en-quote"]["116.3b"].canonical == "117.3b"
    assert any("en-quote" in n for n in notes)


def test_change_between_examples_count_as_edits() -> None:
    a = _rule(OLD, "117.1", "Same text.")
    b = _rule(NEW, "117.1", "Same text.")
    assert change_between(a, b) == "same"
    b.examples = ["A new example."]
    assert change_between(a, b) == "edited"
    assert change_between(None, b) == "created"
    assert change_between(a, None) == "deleted"


def test_renamed_heading_follows_its_children() -> None:
    old = {
        "716": _rule(OLD, "716", title="Ending the Turn"),
        "716.1": _rule(
            OLD,
            "716.1",
            "Some effects can end the turn, skipping everything else that would happen.",
        ),
        "716.2": _rule(
            OLD,
            "716.2",
            "When a turn ends this way, any spells on the stack are exiled from the game at once.",
        ),
    }
    new = {
        "720": _rule(NEW, "720", title="Ending Turns and Phases"),
        "720.1": _rule(
            NEW,
            "720.1",
            "Some effects can end the turn, skipping everything else that would happen.",
        ),
        "720.2": _rule(
            NEW,
            "720.2",
            "When a turn ends this way, any spells on the stack are exiled from the game at once.",
        ),
    }
    for table in (old, new):
        head = next(r for r in table.values() if r.title)
        head.children = [n for n in table if n != head.number]
    al = align(old, new)
    assert al.pairs == {"716": "720", "716.1": "720.1", "716.2": "720.2"}


def test_changes_between_editions_are_listed_in_one_order_whatever_the_hashing() -> None:
    """Section 9 and rule 900 sort alike by number: their order in a comparison was the order
    of a set of strings, which changes with each process's hash seed (two builds of the same
    inputs wrote different ``changes`` tables)."""
    import os
    import subprocess
    import sys

    code = (
        "from kb.align.concordance import diff_editions\n"
        "from kb.knowledge.model import Edition, KnowledgeBase, Rule\n"
        "eds = {i: Edition(i, 'en', d, 'full', i, [i]) for i, d in "
        "(('en-a', '2020-01-01'), ('en-b', '2020-02-01'))}\n"
        "rules = {'en-a': {}, 'en-b': {n: Rule('en-b', 'en', n, 'rule', 'x ' + n) for n in "
        "('9', '900', '900.1', '901')}}\n"
        "for r in rules['en-b'].values():\n"
        "    r.lineage = r.number\n"
        "kb = KnowledgeBase(editions=eds, rules=rules)\n"
        "print([c.new for c in diff_editions(kb, 'en-a', 'en-b')])\n"
    )
    seen = set()
    for seed in range(8):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        seen.add(done.stdout.strip())
    assert seen == {"['9', '900', '900.1', '901']"}


def _moves(*pairs: str) -> list[dict[str, str]]:
    return [dict(zip(("old", "new"), p.split(">"), strict=True)) for p in pairs]


def _folded(runs: list[dict]) -> list[tuple[str, str, int]]:
    return [(r["first"]["old"], r["last"]["new"], r["count"]) for r in runs]


def test_move_runs_fold_only_uniform_contiguous_shifts() -> None:
    from kb.knowledge.lookup import move_runs

    # 2008-10-01 -> 2009-02-01: a swap (217.2e/f) then a shift by one letter (217.6c-e).
    moves = _moves(
        "217.2f>217.2e", "217.2e>217.2f", "217.6c>217.6d", "217.6d>217.6e", "217.6e>217.6f"
    )
    order = ["217.2d", "217.2e", "217.2f", "217.6b", "217.6c", "217.6d", "217.6e"]
    assert _folded(move_runs(moves, order)) == [
        ("217.2f", "217.2e", 1),
        ("217.2e", "217.2f", 1),
        ("217.6c", "217.6f", 3),
    ]
    # A rule and its subrules shifted together (subrule number or rule number), across the
    # letters the rules skip ("l", "o"): one run each.
    shifted = _moves("702.30>702.31", "702.30a>702.31a", "702.30b>702.31b")
    assert _folded(move_runs(shifted)) == [("702.30", "702.31b", 3)]
    skipping = _moves("702.19k>702.19m", "702.19m>702.19n")
    assert _folded(move_runs(skipping)) == [("702.19k", "702.19n", 2)]
    # Subrules turned into rules (a change of depth), or steps that differ: pairs.
    irregular = _moves("110.5a>111.2", "110.5b>111.3", "300.1>300.2", "300.2>300.4")
    assert [r["count"] for r in move_runs(irregular)] == [1, 1, 1, 1]


def test_move_runs_break_where_the_old_rules_are_not_neighbours() -> None:
    from kb.knowledge.lookup import move_runs

    # 217.6d was deleted between the two moved rules: the same step, but not one block.
    moves = _moves("217.6c>217.6b", "217.6e>217.6d")
    order = ["217.6a", "217.6c", "217.6d", "217.6e"]
    assert [r["count"] for r in move_runs(moves, order)] == [1, 1]
    assert [r["count"] for r in move_runs(moves, ["217.6a", "217.6c", "217.6e"])] == [2]


def test_align_follows_a_rule_merged_into_a_neighbour_or_split() -> None:
    # As 2025-09-19 -> 2025-11-14: the mana rule (500.4) became the second sentence of 500.5,
    # and the old 500.5 on effects that expire was cut into 500.4, 500.5, 500.5a and 500.5b.
    a, b = "en-2025-09-19", "en-2025-11-14"
    old = [
        _rule(a, "500", title="General"),
        _rule(a, "500.3", "A step in which nobody gets priority ends once its actions are done."),
        _rule(a, "500.4", "When a step or phase ends, the unused mana in each mana pool empties."),
        _rule(
            a,
            "500.5",
            "When a step or phase ends, effects lasting until its end expire. When a step or "
            "phase begins, effects lasting until it expire. Effects lasting until end of combat "
            "expire at the end of the combat phase, not at the start of the end of combat step.",
        ),
    ]
    new = [
        _rule(b, "500", title="General"),
        _rule(b, "500.3", "A step in which nobody gets priority ends once its actions are done."),
        _rule(b, "500.4", "As a step or phase begins, effects lasting until it expire."),
        _rule(
            b,
            "500.5",
            "As a step or phase ends, effects lasting until its end expire. Then the unused "
            "mana in each mana pool empties, a turn-based action.",
        ),
        _rule(
            b,
            "500.5a",
            "Effects lasting until end of combat expire at the end of the combat phase, not at "
            "the start of the end of combat step.",
        ),
    ]
    al = align({r.number: r for r in old}, {r.number: r for r in new})
    # The mana rule's words are nearly all in the new 500.5; the largest piece of the old
    # 500.5 is 500.5a; the new 500.4 carries too little of anything to continue a rule.
    assert al.pairs["500.4"] == "500.5"
    assert al.pairs["500.5"] == "500.5a"
    assert "500.4" not in al.pairs.values()
