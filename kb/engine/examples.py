"""Executable examples: Markdown files whose ```` ```game ```` blocks run on the engine.

Each file has a title (its first ``# `` heading), a ``rules: 117.3b, 117.4`` line, prose for
players, and one or more scenarios. :func:`run_example_file` runs them and checks every
expectation; it never raises for a bad file: ``failures`` says what went wrong, with file:line.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from kb.base.paths import EXAMPLES_DIR
from kb.engine.cards import CardError, CardPool, default_pool
from kb.engine.game import Event, Game, GameObject, IllegalAction, ScenarioError
from kb.engine.layers import colors_of, type_line
from kb.engine.mana import format_mana, parse_mana
from kb.engine.script import Statement, is_setup, parse_block, split_list
from kb.engine.steps import Step
from kb.knowledge.model import ExampleInfo

DEFAULT_EXAMPLES_DIR = EXAMPLES_DIR
#: Translations of an example live in ``translations/<example id>.toml`` beside the examples.
TRANSLATIONS = "translations"
#: The languages a translation file may hold (English is the example file itself).
TRANSLATED_LANGUAGES = ("fr", "ja")
_RULES_LINE = re.compile(r"^\s*(?:\*\*)?rules(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.+)$", re.I | re.M)
_RULE_TOKEN = re.compile(r"\b\d{3}(?:\.\d+[a-z]?)?\b|\bMTR\s*\d+(?:\.\d+)*\b", re.I)


@dataclass(slots=True)
class ExampleResult(ExampleInfo):
    """The outcome of one example file: the knowledge base's :class:`ExampleInfo`, plus what
    went wrong (file:line messages), so the build can store it as it is."""

    failures: list[str] = field(default_factory=list)


def parse_rules_line(markdown: str) -> list[str]:
    """The rules a file cites on its ``rules:`` line, as short keys (``117.3b``, ``MTR 4.2``)."""
    m = _RULES_LINE.search(markdown)
    if not m:
        return []
    out = []
    for token in _RULE_TOKEN.findall(m.group(1)):
        key = re.sub(r"\s+", " ", token.strip()).rstrip(".")
        key = "MTR " + key[3:].strip() if key.upper().startswith("MTR") else key
        if key not in out:
            out.append(key)
    return out


class TranslationError(ValueError):
    """A translation file that cannot be used; the message names the file and what is wrong."""


def example_prose(markdown: str) -> str:
    """The prose of an example: its Markdown without the title, the ``rules:`` line and the
    ``game`` blocks (what a translation renders in its own language)."""
    out: list[str] = []
    in_game = False
    title_done = False
    for line in markdown.splitlines():
        stripped = line.strip()
        if in_game:
            if stripped.startswith("```"):
                in_game = False
            continue
        if re.fullmatch(r"```+\s*game\s*", stripped):
            in_game = True
            continue
        if not title_done and re.match(r"^#\s+", line):
            title_done = True
            continue
        if _RULES_LINE.fullmatch(line):
            continue
        out.append(line.rstrip())
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def load_translation(path: Path) -> dict[str, dict[str, str]]:
    """Read ``translations/<id>.toml``: ``[fr]`` and ``[ja]`` tables of ``title`` and ``prose``
    strings; raises :class:`TranslationError` naming the file for anything else."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as err:
        raise TranslationError(f"{path}: cannot read: {err.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise TranslationError(f"{path}: not valid TOML: {err}") from None
    out: dict[str, dict[str, str]] = {}
    for lang, table in data.items():
        if lang not in TRANSLATED_LANGUAGES:
            raise TranslationError(
                f"{path}: unknown language table [{lang}] (known: "
                f"{', '.join(TRANSLATED_LANGUAGES)})"
            )
        if not isinstance(table, dict):
            raise TranslationError(f"{path}: '{lang}' is a table [{lang}] with title and prose")
        extra = sorted(set(table) - {"title", "prose"})
        if extra:
            raise TranslationError(f"{path}: [{lang}] has unknown keys: {', '.join(extra)}")
        for key in ("title", "prose"):
            value = table.get(key)
            if not isinstance(value, str) or not value.strip():
                raise TranslationError(f"{path}: [{lang}] needs a non-empty string '{key}'")
        out[lang] = {"title": table["title"].strip(), "prose": table["prose"].strip()}
    return out


def translation_path(example: Path) -> Path:
    """Where the translations of an example file live."""
    return example.parent / TRANSLATIONS / f"{example.stem}.toml"


def orphan_translations(folder: Path) -> list[str]:
    """Failures for translation files of ``folder`` that name no example file there."""
    tdir = Path(folder) / TRANSLATIONS
    if not tdir.is_dir():
        return []
    return [
        f"{path}: a translation of {path.stem!r}, but there is no example {path.stem}.md"
        for path in sorted(tdir.glob("*.toml"))
        if not (Path(folder) / f"{path.stem}.md").is_file()
    ]


def _blocks(markdown: str) -> list[list[tuple[int, str]]]:
    """The ``game`` fenced blocks, as numbered lines (1-based line numbers of the file)."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] | None = None
    for lineno, line in enumerate(markdown.splitlines(), 1):
        stripped = line.strip()
        if current is None:
            if re.fullmatch(r"```+\s*game\s*", stripped):
                current = []
        elif stripped.startswith("```"):
            blocks.append(current)
            current = None
        else:
            current.append((lineno, line))
    if current is not None:
        blocks.append(current)
    return blocks


class _Run:
    """One scenario being played: the game, the last action's events, and the failures."""

    def __init__(self, where: str, pool: CardPool) -> None:
        self.where = where
        self.pool = pool.copy()
        self.game: Game | None = None
        self.setup: dict[str, Any] = {
            "players": None,
            "mode": "strict",
            "turn": None,
            "has": [],
            "options": [],
            "teams": None,
        }
        self.failures: list[str] = []
        self.last: list[Event] = []
        self.last_line = 0

    def fail(self, line: int, message: str) -> None:
        self.failures.append(f"{self.where}:{line}: {message}")

    def start(self, line: int) -> bool:
        if self.game is not None:
            return True
        s = self.setup
        if not s["players"]:  # an action or expectation before any 'players:' line
            self.fail(line, "no 'players:' line before this one: a game needs 2 to 4 players")
            return False
        where = line  # a zone's error is reported at its own 'has:' line
        try:
            game = Game(s["players"], self.pool, s["mode"])
            game.one_defender = "one defending player" in s["options"]
            game.planechase = "planechase" in s["options"]
            if s["teams"]:
                game.set_teams(s["teams"])
            for st in s["has"]:
                where = st.line
                who = st.data["player"]
                for zone, value in st.data["zones"].items():
                    if zone == "life":
                        game.set_life(who, value)
                    elif zone == "poison":
                        game.player(who).poison = value
                    elif zone == "lands played":
                        game.player(who).lands_played = value
                    elif zone == "companion":
                        if len(value) != 1:
                            raise ScenarioError("a player has one companion: companion [Name]")
                        game.put(who, zone, value)
                    elif zone == "pool":
                        game.player(who).pool.add(value)
                    elif zone == "library" and isinstance(value, int):
                        game.set_library_count(who, value)
                    else:
                        if zone == "library":
                            game.player(who).library = []
                        game.put(who, zone, value)
            for pl in game.players:
                if not any(
                    "library" in st.data["zones"]
                    for st in s["has"]
                    if st.data["player"].lower() == pl.name.lower()
                ):
                    game.set_library_count(pl.name, 20)
            where = line
            who, step, number = s["turn"] or (s["players"][0], Step.PRECOMBAT_MAIN, 2)
            game.start(who, step, number)
        except (ScenarioError, CardError, IllegalAction) as err:
            self.fail(where, f"setup: {err}")
            return False
        self.game = game
        self.last = list(game.events)
        return True

    def run(self, statements: list[Statement]) -> None:
        for i, st in enumerate(statements):
            if is_setup(st):
                if self.game is not None:
                    self.fail(
                        st.line,
                        "'players:' comes before the first action"
                        if st.kind == "players"
                        else f"setup line after the game started: {st.text!r}",
                    )
                    return
                if st.kind == "players":
                    self.setup["players"] = st.data["players"]
                elif st.kind == "mode":
                    self.setup["mode"] = st.data["mode"]
                elif st.kind == "turn":
                    self.setup["turn"] = (st.data["player"], st.data["step"], st.data["number"])
                elif st.kind == "option":
                    self.setup["options"].append(st.data["option"])
                elif st.kind == "teams":
                    self.setup["teams"] = st.data["teams"]
                elif st.kind == "card":
                    self.pool.add(st.data["card"])
                else:
                    self.setup["has"].append(st)
                continue
            if not self.start(st.line):
                return
            game = self.game
            assert game is not None
            if st.kind == "action":
                self.last = game.perform(st.data["action"])
                self.last_line = st.line
                rejected = [e for e in self.last if e.kind == "rejected"]
                nxt = statements[i + 1] if i + 1 < len(statements) else None
                expects_rejection = (
                    nxt is not None and nxt.kind == "expect" and nxt.data["what"] == "rejected"
                )
                if rejected and not expects_rejection:
                    self.fail(
                        st.line,
                        f"action rejected: {rejected[0].text} ({', '.join(rejected[0].rules)})",
                    )
                    return
            elif st.kind == "advance":
                try:
                    self.last = game.advance_to(st.data["player"], st.data["step"])
                except ScenarioError as err:
                    self.fail(st.line, f"advance: {err}")
                    return
                self.last_line = st.line
            elif st.kind == "expect":
                self.expect(st)
        if self.game is None and self.setup["players"]:
            self.start(statements[-1].line if statements else 0)

    # ---- expectations -----------------------------------------------------------------------
    def expect(self, st: Statement) -> None:
        game = self.game
        assert game is not None
        what = st.data["what"]
        value = st.data.get("value", "")
        subject = st.data.get("subject")

        def check(expected: str, actual: str) -> None:
            if expected.lower() != actual.lower():
                self.fail(
                    st.line,
                    f"expected {what}{' ' + subject if subject else ''}: {expected}, got {actual}",
                )

        if what == "priority":
            check(value, game.priority_player or "none")
        elif what == "step":
            actual = f"{game.players[game.active].name} {game.step.value}"
            expected = f"{st.data['player']} {st.data['step'].value}"
            check(expected, actual)
        elif what == "stack":
            expected_names = split_list(value)
            actual_names = game.stack_names()
            if [n.lower() for n in expected_names] != [n.lower() for n in actual_names]:
                check(_show(expected_names), _show(actual_names))
        elif what == "resolved":
            resolved = [e.data.get("resolved", "") for e in self.last if e.kind == "resolve"]
            if value.lower() not in (r.lower() for r in resolved):
                check(value, "nothing resolved" if not resolved else ", ".join(resolved))
        elif what == "life":
            assert subject is not None
            check(value, str(game.player(subject).life))
        elif what in ("hand", "battlefield", "graveyard", "exile"):
            assert subject is not None
            objs = game.zone(subject, what)
            expected_names = split_list(value)
            actual_names = [o.label if isinstance(o, GameObject) else o.name for o in objs]
            if sorted(n.lower() for n in expected_names) != sorted(n.lower() for n in actual_names):
                check(_show(expected_names), _show([o.label for o in objs]))
        elif what == "library":
            assert subject is not None
            check(value, str(len(game.player(subject).library)))
        elif what == "pool":
            assert subject is not None
            expected_pool = {} if value.lower() in ("{}", "empty") else parse_mana(value)
            check(format_mana(expected_pool), format_mana(game.player(subject).pool.amounts))
        elif what == "lost":
            pl = game.player(value)
            if not pl.lost:
                check(f"{pl.name} lost", f"{pl.name} is still in the game")
        elif what == "game":
            if game.game_over:
                actual = (
                    "draw" if game.winner is None else f"won by {game.players[game.winner].name}"
                )
            else:
                actual = "on"
            check(value, actual)
        elif what == "rejected":
            rejected = [e for e in self.last if e.kind == "rejected"]
            if not rejected:
                check(
                    f"a rejection citing {value}",
                    f"the action at line {self.last_line} was accepted",
                )
                return
            event = rejected[0]
            if value in event.rules or value.lower() in event.text.lower():
                return
            check(value, f"{event.text} ({', '.join(event.rules)})")
        elif what == "log":
            if not any(value.lower() in e.line().lower() for e in self.last):
                check(
                    f"a trace line containing {value!r}",
                    f"the last action's {len(self.last)} events do not mention it",
                )
        elif what == "poison":
            assert subject is not None
            check(value, str(game.player(subject).poison))
        elif what in ("layers", "types", "controller", "color", "abilities", "name"):
            assert subject is not None
            self.expect_layers(st, what, subject, value, check)
        elif what in ("pt", "counters", "loyalty", "attached"):
            assert subject is not None
            try:
                obj = game.find_permanent(subject)
            except (IllegalAction, ScenarioError) as err:
                self.fail(st.line, f"expected {what} {subject}: {value}, got {err}")
                return
            if what == "pt":
                check(value, f"{game.power(obj)}/{game.toughness(obj)}")
            elif what == "loyalty":
                check(value, str(obj.counters.get("loyalty", 0)))
            elif what == "counters":
                shown = ", ".join(f"{n} {k}" for k, n in sorted(obj.counters.items()) if n)
                check(value, shown or "none")
            else:
                host = game._object(obj.attached_to) if obj.attached_to is not None else None
                check(value, host.label if host is not None else "nothing")
        elif what in ("tapped", "untapped"):
            try:
                obj = game.find_permanent(value)
            except (IllegalAction, ScenarioError) as err:
                self.fail(st.line, f"expected {what}: {value}, got {err}")
                return
            actual = "tapped" if obj.tapped else "untapped"
            if actual != what:
                self.fail(st.line, f"expected {value} {what}, got {actual}")

    def expect_layers(self, st: Statement, what: str, subject: str, value: str, check: Any) -> None:
        """What the layers made of a permanent (613): its types, controller, color, abilities,
        and the explanation of its characteristics."""
        game = self.game
        assert game is not None
        try:
            obj = game.find_permanent(subject)
        except (IllegalAction, ScenarioError) as err:
            self.fail(st.line, f"expected {what} {subject}: {value}, got {err}")
            return
        card = obj.card
        if what == "name":
            check(value, card.name)
        elif what == "types":
            check(value, type_line(card))
        elif what == "controller":
            check(value, game.players[obj.controller].name)
        elif what == "color":
            check(value, " and ".join(colors_of(card)) or "colorless")
        elif what == "abilities":
            said = [*sorted(card.keywords), *(a.text for a in card.abilities)]
            said += [t.text for t in card.triggers] + [s.text for s in card.statics]
            said += [r.text for r in card.replacements]
            shown = "; ".join(said) or "none"
            exact = "none" in (value.lower(), shown)
            if exact or value.lower() not in shown.lower():
                check(value if exact else f"abilities mentioning {value}", shown)
        else:
            lines = game.layer_explanation(obj)
            if value.lower() not in "\n".join(lines).lower():
                self.fail(
                    st.line,
                    f"expected layers {subject} to mention {value!r}, got: " + " | ".join(lines),
                )


def _show(names: list[str]) -> str:
    return "[" + ", ".join(names) + "]" if names else "empty"


def run_example_file(path: Path, pool: CardPool | None = None) -> ExampleResult:
    """Run every scenario of one example file; never raises for a bad file."""
    path = Path(path)
    where = str(path)
    try:
        markdown = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        if isinstance(err, UnicodeDecodeError):
            problem = f"is not UTF-8 text (byte {err.start}); an example is a Markdown file"
        else:
            problem = f"cannot read: {err.strerror or err}"
        return ExampleResult(
            path.stem, path.stem, where, [], "", False, failures=[f"{where}: {problem}"]
        )
    title_match = re.search(r"^#\s+(.+?)\s*$", markdown, re.M)
    title = title_match.group(1) if title_match else path.stem
    rules = parse_rules_line(markdown)
    failures: list[str] = []
    if not title_match:
        failures.append(f"{where}:1: no title (a first '# ' heading)")
    if not rules:
        failures.append(f"{where}:1: no 'rules: …' line naming the rules the example shows")
    try:
        card_pool = pool or default_pool()
    except CardError as err:
        return ExampleResult(path.stem, title, where, rules, markdown, False, failures=[str(err)])
    blocks = _blocks(markdown)
    if not blocks:
        failures.append(f"{where}:1: no ```game block")
    trace: list[dict[str, Any]] = []
    texts: list[str] = []
    for n, lines in enumerate(blocks, 1):
        statements, problems = parse_block(lines)
        if problems:
            failures.extend(f"{where}:{p.line}: syntax error: {p.message}" for p in problems)
            continue
        run = _Run(where, card_pool)
        run.run(statements)
        failures.extend(run.failures)
        if run.game is not None:
            for event in run.game.events:
                data = event.to_dict()
                data["scenario"] = n
                trace.append(data)
            if len(blocks) > 1:
                texts.append(f"-- scenario {n} --")
            texts.append(run.game.trace_text())
    titles = {"en": title}
    prose = {"en": example_prose(markdown)}
    tpath = translation_path(path)
    if tpath.is_file():
        try:
            for lang, text in load_translation(tpath).items():
                titles[lang] = text["title"]
                prose[lang] = text["prose"]
        except TranslationError as err:
            failures.append(str(err))
    return ExampleResult(
        id=path.stem,
        title=title,
        path=where,
        rules=rules,
        markdown=markdown,
        passed=not failures,
        trace=trace,
        trace_text="\n".join(texts),
        titles=titles,
        prose=prose,
        failures=failures,
    )


def expand_paths(paths: list[Path]) -> list[Path]:
    """Folders expand to their ``*.md`` files (sorted); files stay as given."""
    out: list[Path] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            out.extend(sorted(p for p in path.glob("*.md") if p.name.lower() != "readme.md"))
        else:
            out.append(path)
    return out


def run_examples(paths: list[Path]) -> list[ExampleResult]:
    """Run many example files (a folder expands to its ``*.md`` files); a translation file of a
    folder that names no example there is a failed result named after that file."""
    results = [run_example_file(p) for p in expand_paths(paths)]
    for folder in (Path(p) for p in paths):
        if folder.is_dir():
            for failure in orphan_translations(folder):
                bad = failure.split(": ", 1)[0]
                stem = Path(bad).stem
                results.append(
                    ExampleResult(
                        f"{TRANSLATIONS}/{stem}", stem, bad, [], "", False, failures=[failure]
                    )
                )
    return results


def examples_cli(paths: list[str], trace: bool = False, out: TextIO | None = None) -> int:
    """``kb examples run``: one line per example, ``N passed, N failed``; 0 if all pass."""
    out = out or sys.stdout
    targets = [Path(p) for p in paths] if paths else [DEFAULT_EXAMPLES_DIR]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        print(f"no such file or folder: {', '.join(missing)}", file=out)
        return 1
    empty = [str(p) for p in targets if p.is_dir() and not expand_paths([p])]
    if empty:  # a folder with no example is a mistyped path, not "0 passed, 0 failed"
        print(f"no example files (*.md) found in {', '.join(empty)}", file=out)
        return 1
    results = run_examples(targets)
    passed = failed = 0
    for result in results:
        cited = f" ({', '.join(result.rules)})" if result.rules else ""
        if result.passed:
            passed += 1
            print(f"PASS {result.id}{cited}", file=out)
        else:
            failed += 1
            print(f"FAIL {result.id}{cited}: {result.failures[0]}", file=out)
            for more in result.failures[1:]:
                print(f"     {more}", file=out)
        if trace and result.trace_text:
            print(result.trace_text, file=out)
            print(file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 and results else 1
