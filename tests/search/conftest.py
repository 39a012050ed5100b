"""A small hand-built trilingual knowledge base and its index, for the search tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.knowledge.model import (
    Commentary,
    Edition,
    GlossaryEntry,
    KnowledgeBase,
    Rule,
    Term,
    TournamentRule,
)
from kb.search import Searcher, build_index

EN_OLD = "en-2016-11-11"
EN_NEW = "en-2025-11-14"
FR = "fr-2011-02-04"
JA = "ja-2023-11-17"


def _rule(ed: str, lang: str, number: str, text: str, canonical: str, title: str | None = None):
    depth = number.count(".")
    kind = "rule" if depth == 0 else "subrule"
    return Rule(ed, lang, number, kind, text, title=title, canonical=canonical)


def small_kb() -> KnowledgeBase:
    """Two English editions (priority was 116, now 117), a French and a Japanese quote."""
    kb = KnowledgeBase(content_hash="test-hash-1")
    kb.editions = {
        EN_OLD: Edition(EN_OLD, "en", "2016-11-11", "full", EN_OLD, ["a.txt"]),
        EN_NEW: Edition(EN_NEW, "en", "2025-11-14", "full", EN_NEW, ["b.txt"]),
        FR: Edition(FR, "fr", "2011-02-04", "partial", EN_OLD, ["fr.txt"]),
        JA: Edition(JA, "ja", "2023-11-17", "partial", "en-2023-11-17", ["ja.txt"]),
    }
    old = [
        _rule(EN_OLD, "en", "116", "", "117", "Timing and Priority"),
        _rule(
            EN_OLD,
            "en",
            "116.3b",
            "The active player receives priority after a spell or ability resolves.",
            "117.3b",
        ),
        _rule(
            EN_OLD,
            "en",
            "116.5",
            "Each time a player would receive priority, the game "
            "first performs all applicable state-based actions.",
            "117.5",
        ),
        _rule(EN_OLD, "en", "115", "", "116", "Special Actions"),
        _rule(EN_OLD, "en", "999.1", "Mana burn causes loss of life.", None),  # deleted since
    ]
    new = [
        _rule(EN_NEW, "en", "117", "", "117", "Timing and Priority"),
        _rule(
            EN_NEW,
            "en",
            "117.3b",
            "The active player receives priority after a spell or ability (other than a mana "
            "ability) resolves.",
            "117.3b",
        ),
        _rule(
            EN_NEW,
            "en",
            "117.5",
            "Each time a player would receive priority, the game "
            "first performs all applicable state-based actions.",
            "117.5",
        ),
        _rule(EN_NEW, "en", "116", "", "116", "Special Actions"),
        _rule(
            EN_NEW,
            "en",
            "116.2a",
            "Playing a land is a special action. It doesn’t use the "
            "stack, so players can’t respond to it.",
            "116.2a",
        ),
        _rule(
            EN_NEW,
            "en",
            "605.3a",
            "A player may activate a mana ability whenever they have "
            "priority. Mana abilities don’t use the stack and can’t be responded to.",
            "605.3a",
        ),
        _rule(
            EN_NEW,
            "en",
            "704.5a",
            "If a player has 0 or less life, that player loses the game.",
            "704.5a",
        ),
    ]
    old[0].children = ["116.3b", "116.5"]
    new[0].children = ["117.3b", "117.5"]
    new[3].children = ["116.2a"]
    fr = [
        _rule(FR, "fr", "116", "", "117", "Timing et priorité"),
        _rule(
            FR,
            "fr",
            "116.3b",
            "Le joueur actif reçoit la priorité après qu'un sort ou une capacité s'est résolu.",
            "117.3b",
        ),
        _rule(
            FR,
            "fr",
            "116.5",
            "Chaque fois qu'un joueur devrait recevoir la priorité, le jeu "
            "effectue d'abord toutes les actions basées sur un état applicables.",
            "117.5",
        ),
    ]
    ja = [
        _rule(JA, "ja", "116", "", "116", "特別な処理"),
        _rule(JA, "ja", "116.2a", "土地をプレイすることは特別な処理である。", "116.2a"),
        _rule(
            JA,
            "ja",
            "117.3b",
            "呪文や能力が解決された後、アクティブ・プレイヤーは優先権を得る。",
            "117.3b",
        ),
    ]
    for rules in (old, new, fr, ja):
        for r in rules:
            kb.rules.setdefault(r.edition, {})[r.number] = r
            if r.canonical:
                kb.concordance.setdefault(r.canonical, {})[r.edition] = r.number
    kb.glossary = {
        EN_NEW: {
            "priority": GlossaryEntry(
                EN_NEW,
                "en",
                "priority",
                "Priority",
                "Which player can take actions at any given time. See rule 117.",
            ),
            "state-based actions": GlossaryEntry(
                EN_NEW,
                "en",
                "state-based actions",
                "State-Based Actions",
                "Game actions that happen automatically whenever certain conditions are met.",
                aliases=["SBA"],
            ),
        },
        EN_OLD: {
            "priority": GlossaryEntry(
                EN_OLD,
                "en",
                "priority",
                "Priority",
                "Which player can take actions at any given time. See rule 116.",
            ),
        },
    }
    kb.commentary = [
        Commentary(
            "c1",
            "fr",
            "Les joueurs reçoivent la priorité dans la plupart des étapes.",
            "fr-wiki.txt",
            about_rules=["117"],
        ),
    ]
    kb.tournament = [
        TournamentRule("mtr-4.2-1", "fr", "4.2", "« Go » offre de passer la priorité.", "mtr.txt")
    ]
    kb.terms = [
        Term("priority", ["priority"], ["priorité"], ["優先権"], ["117"]),
        Term(
            "state-based-actions",
            ["state-based actions", "state-based action"],
            ["action basée sur un état", "actions basées sur un état"],
            ["状況起因処理"],
            ["704"],
        ),
        Term("special-action", ["special action"], ["action spéciale"], ["特別な処理"], ["116"]),
    ]
    return kb


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return small_kb()


@pytest.fixture(scope="module")
def index_dir(kb: KnowledgeBase, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("index")
    build_index(kb, path)
    return path


@pytest.fixture(scope="module")
def searcher(kb: KnowledgeBase, index_dir: Path):
    with Searcher(index_dir, kb) as s:
        yield s
