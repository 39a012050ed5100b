"""The build on the embedded corpus: editions, links across languages, atomic and cached rebuilds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.build import BUILD_FILE, KB_FILE, build, load


def test_embedded_editions_and_languages(embedded_kb) -> None:
    langs = {e.lang for e in embedded_kb.editions.values()}
    assert langs == {"en", "fr", "ja"}
    ja = embedded_kb.newest("ja")
    assert ja.version == "20231117.0" and ja.date == "2023-11-17"
    assert embedded_kb.edition("en", "2024-07-30").kind == "partial"


def test_seed_000_and_001_are_one_rule(embedded_kb) -> None:
    kb = embedded_kb
    fr = next(e for e in kb.editions_of("fr") if e.kind == "partial" and "116.3b" in kb.rules[e.id])
    en_old = next(e for e in kb.editions_of("en") if "116.3b" in kb.rules[e.id])
    en_new = kb.edition("en", "2024-07-30")
    assert kb.rules[fr.id]["116.3b"].canonical == "117.3b"
    assert kb.rules[en_old.id]["116.3b"].canonical == "117.3b"
    assert kb.rules[en_new.id]["117.3b"].canonical == "117.3b"
    assert fr.translates == en_old.id
    lineage = kb.concordance["117.3b"]
    assert {fr.id, en_old.id, en_new.id} <= set(lineage)


def test_references_resolve_within_their_edition(embedded_kb) -> None:
    kb = embedded_kb
    en_old = next(e for e in kb.editions_of("en") if "116.2a" in kb.rules[e.id])
    refs = {r.number: r for r in kb.rules[en_old.id]["116.2a"].refs}
    assert set(refs) >= {"603", "116.5"}
    assert refs["116.5"].resolved and refs["116.5"].canonical == "117.5"
    assert not refs["603"].resolved  # a quote holds only rule 116


def test_tournament_rules_and_the_lost_symbol(embedded_kb) -> None:
    items = [t for t in embedded_kb.tournament if t.lang == "fr"]
    assert len(items) >= 10
    flagged = [t for t in items if "lost-symbol" in t.flags]
    assert len(flagged) == 1 and "dans son coût de mana" in flagged[0].text
    assert any("lost" in w.lower() or "symbol" in w.lower() for w in embedded_kb.warnings)


def test_tournament_rules_carry_their_section_name(embedded_kb) -> None:
    # The French bullets never name their section: its name is the manifest's title of the
    # file, without the section number it restates.
    items = [t for t in embedded_kb.tournament if t.lang == "fr"]
    assert {t.title for t in items} == {"Raccourcis de tournoi"}


def test_commentary_attached_to_canonical_rules(embedded_kb) -> None:
    assert {c.lang for c in embedded_kb.commentary} >= {"fr", "ja"}
    about = {r for c in embedded_kb.commentary for r in c.about_rules}
    assert about & {"117", "116"}


def test_term_base_is_trilingual(embedded_kb) -> None:
    terms = embedded_kb.terms
    assert len(terms) >= 40
    priority = next(t for t in terms if "priority" in [n.lower() for n in t.en])
    assert "priorité" in priority.fr and "優先権" in priority.ja


def test_unchanged_inputs_skip_the_build(embedded_instance: Path) -> None:
    before = (embedded_instance / KB_FILE).stat().st_mtime_ns
    report = build(embedded_instance)
    assert report.skipped
    assert (embedded_instance / KB_FILE).stat().st_mtime_ns == before
    assert "Up to date" in report.summary()


def test_build_info_and_summary(embedded_instance: Path) -> None:
    info = json.loads((embedded_instance / BUILD_FILE).read_text(encoding="utf-8"))
    assert info["totals"]["editions"] == len(load(embedded_instance).editions)
    assert info["totals"]["engine_examples"] >= 40
    assert sum(ed["rules"] for ed in info["editions"]) == info["totals"]["rules"] > 50


def test_rules_know_their_terms_in_every_language(embedded_kb) -> None:
    kb = embedded_kb
    fr = next(e for e in kb.editions_of("fr") if "116.3b" in kb.rules[e.id])
    assert {"active player", "priority"} <= set(kb.rules[fr.id]["116.3b"].terms)
    ja = kb.newest("ja")
    assert {"special action", "priority", "stack"} <= set(kb.rules[ja.id]["116.2a"].terms)
    en = kb.edition("en", "2024-07-30")
    assert "pass" in kb.rules[en.id]["117.3d"].terms  # "passes" is the glossary's "Pass"


def test_commentary_about_terms_points_at_their_rules(embedded_kb) -> None:
    # The Japanese page names no rule number in its prose; it is about 優先権, which rule 117 defines.
    ja = [c for c in embedded_kb.commentary if c.lang == "ja"]
    assert ja and all("117" in c.about_rules for c in ja)


def test_a_changed_example_translation_changes_the_content_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editing only a translation of an example is a change: the next build must not be skipped."""
    import kb.build

    examples = tmp_path / "examples"
    (examples / "translations").mkdir(parents=True)
    (examples / "one.md").write_text("# One\n\nrules: 117.1\n", encoding="utf-8")
    translation = examples / "translations" / "one.toml"
    translation.write_text('[fr]\ntitle = "Un"\nprose = ""\n', encoding="utf-8")
    monkeypatch.setattr(kb.build, "EXAMPLES_DIR", examples)
    before = kb.build.content_hash([])
    translation.write_text('[fr]\ntitle = "Une"\nprose = ""\n', encoding="utf-8")
    assert kb.build.content_hash([]) != before
