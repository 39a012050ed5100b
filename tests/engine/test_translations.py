"""The loader of example translations: English from the example file, French and Japanese from
``translations/<id>.toml``; a bad or orphan translation file is a failure naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.engine.examples import (
    TranslationError,
    example_prose,
    load_translation,
    run_example_file,
    run_examples,
)

EXAMPLE = """# Passing priority

rules: 117.3d

Alice passes; Bob receives priority (117.3d).

```game
players: Alice, Bob
Alice passes
? priority: Bob
```

After the block, more prose.
"""


def _write(folder: Path, stem: str = "pass", translation: str | None = None) -> Path:
    path = folder / f"{stem}.md"
    path.write_text(EXAMPLE, encoding="utf-8")
    if translation is not None:
        (folder / "translations").mkdir(exist_ok=True)
        (folder / "translations" / f"{stem}.toml").write_text(translation, encoding="utf-8")
    return path


def test_english_comes_from_the_example_file(tmp_path: Path) -> None:
    result = run_example_file(_write(tmp_path))
    assert result.passed, result.failures
    assert result.titles == {"en": "Passing priority"}
    assert result.prose["en"] == (
        "Alice passes; Bob receives priority (117.3d).\n\nAfter the block, more prose."
    )
    assert "players:" not in result.prose["en"] and "rules:" not in result.prose["en"]


def test_french_and_japanese_come_from_the_translation_file(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        translation='[fr]\ntitle = "Passer la priorité"\nprose = """Alice passe."""\n'
        '[ja]\ntitle = "優先権のパス"\nprose = "アリスはパスする。"\n',
    )
    result = run_example_file(path)
    assert result.passed, result.failures
    assert result.titles == {
        "en": "Passing priority",
        "fr": "Passer la priorité",
        "ja": "優先権のパス",
    }
    assert result.prose["fr"] == "Alice passe." and result.prose["ja"] == "アリスはパスする。"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[fr\ntitle = 1", "not valid TOML"),
        ('[de]\ntitle = "x"\nprose = "y"\n', "unknown language table [de]"),
        ('[fr]\ntitle = "x"\n', "non-empty string 'prose'"),
        ('[fr]\ntitle = "x"\nprose = "y"\nsummary = "z"\n', "unknown keys: summary"),
        ('fr = "x"\n', "is a table"),
        ('[ja]\ntitle = 3\nprose = "y"\n', "non-empty string 'title'"),
    ],
)
def test_a_malformed_translation_fails_the_example_naming_the_file(
    tmp_path: Path, text: str, message: str
) -> None:
    result = run_example_file(_write(tmp_path, translation=text))
    assert not result.passed
    bad = str(tmp_path / "translations" / "pass.toml")
    assert any(f.startswith(bad + ":") and message in f for f in result.failures), result.failures
    with pytest.raises(TranslationError, match=r"pass\.toml"):
        load_translation(tmp_path / "translations" / "pass.toml")


def test_a_translation_of_no_example_is_a_failure_naming_the_file(tmp_path: Path) -> None:
    _write(tmp_path)
    (tmp_path / "translations").mkdir()
    (tmp_path / "translations" / "gone.toml").write_text('[fr]\ntitle = "x"\nprose = "y"\n')
    results = run_examples([tmp_path])
    failed = [r for r in results if not r.passed]
    assert len(failed) == 1
    assert "gone.toml" in failed[0].failures[0] and "no example gone.md" in failed[0].failures[0]


def test_prose_keeps_other_code_blocks_and_headings() -> None:
    text = "# T\n\nrules: 117.1\n\n## Why\n\n```text\nnot a game\n```\n"
    assert example_prose(text) == "## Why\n\n```text\nnot a game\n```"
