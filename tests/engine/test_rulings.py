"""Rulings the engine once got wrong, each a game script in the examples' language that must
pass: the rule it broke and the outcome the rules give."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.engine import run_example_file

#: 702.19f: a trampler attacking a planeswalker that left combat can assign nothing past its
#: blocker, so the blocker takes all 6 (510.1c); only lethal damage was dealt, the rest lost.
TRAMPLER_LOSES_ITS_PLANESWALKER = """# Trample blocked, its planeswalker gone

rules: 702.19f, 510.1c

```game
players: Alice, Bob
turn: Alice, declare attackers
Alice has: hand [Shock]; battlefield [Colossal Dreadmaw, Mountain]
Bob has: battlefield ["Chandra, Torch of Defiance" (2 loyalty), Grizzly Bears]
Alice attacks with Colossal Dreadmaw attacking "Chandra, Torch of Defiance"
Alice passes
Bob passes
Bob blocks Colossal Dreadmaw with Grizzly Bears
Alice casts Shock targeting "Chandra, Torch of Defiance"
Alice passes
Bob passes
advance to Alice combat damage
? log: Colossal Dreadmaw deals 6 combat damage to Grizzly Bears
? life Bob: 20
```
"""

#: 306.1 for a planeswalker, as 302.1 for a creature (307.1, the sorcery's, was cited), and
#: "an" before a vowel ("a enchantment" was written).
CAST_AT_THE_WRONG_TIME = """# Permanents cast at the wrong time

rules: 306.1, 303.1

```game
players: Alice, Bob
turn: Bob, end
Alice has: hand ["Chandra, Torch of Defiance", Glorious Anthem]; battlefield [Mountain, Mountain, Mountain, Mountain, Plains, Plains, Plains]
Bob passes
Alice casts "Chandra, Torch of Defiance"
? rejected: 306.1
? rejected: a planeswalker spell
Alice casts Glorious Anthem
? rejected: 303.1
? rejected: is an enchantment spell
```
"""


@pytest.mark.parametrize(
    "script", [TRAMPLER_LOSES_ITS_PLANESWALKER, CAST_AT_THE_WRONG_TIME], ids=["trample", "timing"]
)
def test_the_engine_rules_as_the_rules_say(tmp_path: Path, script: str) -> None:
    path = tmp_path / "ruling.md"
    path.write_text(script, encoding="utf-8")
    result = run_example_file(path)
    assert result.passed, result.failures
