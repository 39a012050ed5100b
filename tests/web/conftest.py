"""Fixtures of the web tests: a small hand-made knowledge base, the app and its test client.

The hand-made base mirrors the real corpus's shape (the 2019 renumbering of Timing and Priority
from 116 to 117, a French text on the old numbering, a Japanese text on the new one), so pages can
be tested without a build. ``web_instance`` is the real build (the embedded corpus, plus the
official editions when ../shared is there); ``full_client`` skips without them.
"""

from __future__ import annotations

import os
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kb.knowledge.model import (
    Change,
    Edition,
    ExampleInfo,
    GlossaryEntry,
    KnowledgeBase,
    Ref,
    Rule,
    Term,
)
from kb.text.rulenum import parse
from kb.web import create_app

#: The shared official English editions (test data we read in place, never copy).
CR_EN_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw" / "cr-en"

OLD, NEW, FR, JA = "en-2019-06-14", "en-2019-07-12", "fr-2019-06-14", "ja-2023-11-17"


def _refs(text: str, *targets: tuple[str, str, bool]) -> list[Ref]:
    """Refs for the labels found in ``text``: (label, number, resolved); old numbers of the
    2019-06-14 numbering (116.x) map to the current 117.x like the build's concordance does."""
    out = []
    for label, number, resolved in targets:
        start = text.index(label)
        canonical = "117" + number[3:] if number.startswith("116") else number
        out.append(Ref(number, label, start, start + len(label), resolved, canonical))
    return out


def _spans(text: str, *terms: tuple[str, str]) -> list[list[object]]:
    """Term spans as the build writes them: [glossary key, start, end] of each (key, words)."""
    return [[key, text.index(words), text.index(words) + len(words)] for key, words in terms]


def _add(kb: KnowledgeBase, edition: str, number: str, text: str, **kw: object) -> Rule:
    num = parse(number)
    lang = edition[:2]
    kind = "section" if num.is_section else ("rule" if num.minor is None else "subrule")
    rule = Rule(edition=edition, lang=lang, number=number, kind=kind, text=text, **kw)  # type: ignore[arg-type]
    parent = num.parent
    table = kb.rules.setdefault(edition, {})
    if parent is not None and str(parent) in table:
        rule.parent = str(parent)
        table[str(parent)].children.append(number)
    table[number] = rule
    if rule.canonical:
        kb.concordance.setdefault(rule.canonical, {})[edition] = number
    return rule


def sample_kb() -> KnowledgeBase:
    """Two English editions around the 2019 renumbering, a French and a Japanese text."""
    kb = KnowledgeBase(content_hash="sample-hash-1")
    kb.editions = {
        OLD: Edition(OLD, "en", "2019-06-14", "full", OLD, ["cr-2019-06-14.txt"], title="CR"),
        NEW: Edition(NEW, "en", "2019-07-12", "full", NEW, ["cr-2019-07-12.txt"], title="CR"),
        FR: Edition(FR, "fr", "2019-06-14", "partial", OLD, ["fr-wiki.txt"], translates=OLD),
        JA: Edition(
            JA,
            "ja",
            "2023-11-17",
            "partial",
            NEW,
            ["ja-wiki.txt"],
            version="20231117.0",
            translates=NEW,
        ),
    }
    for ed, prio, special in ((OLD, "116", "115"), (NEW, "117", "116")):
        _add(kb, ed, "1", "Game Concepts", title="Game Concepts", canonical="1")
        _add(kb, ed, special, "Special Actions", title="Special Actions", canonical="116")
        _add(kb, ed, prio, "Timing and Priority", title="Timing and Priority", canonical="117")
        _add(
            kb,
            ed,
            f"{prio}.1",
            "Unless a spell or ability is instructing a player to take an "
            "action, which player can take actions at any given time is determined by a system "
            "of priority.",
            canonical="117.1",
        )
        _add(
            kb,
            ed,
            f"{prio}.3",
            "Which player has priority is determined by the following rules:",
            canonical="117.3",
        )
        text = (
            f"The active player receives priority at the beginning of most steps and phases. "
            f"See rule {prio}.3b and rule 703."
        )
        _add(
            kb,
            ed,
            f"{prio}.3a",
            text,
            canonical="117.3a",
            refs=_refs(text, (f"rule {prio}.3b", f"{prio}.3b", True), ("rule 703", "703", False)),
            terms=["active player", "priority"],
            term_spans=_spans(text, ("active player", "active player"), ("priority", "priority")),
        )
        verb = "receives" if ed == OLD else "gets"
        _add(
            kb,
            ed,
            f"{prio}.3b",
            f"The player who cast a spell {verb} priority afterward.",
            canonical="117.3b",
            change="edited" if ed == NEW else None,
            examples=[f"Example: Alice casts Shock. See rule {prio}.3a."],
            example_refs=[
                _refs(
                    f"Example: Alice casts Shock. See rule {prio}.3a.",
                    (f"rule {prio}.3a", f"{prio}.3a", True),
                )
            ],
        )
        _add(kb, ed, "5", "Turn Structure", title="Turn Structure", canonical="5")
        _add(kb, ed, "505", "Main Phase", title="Main Phase", canonical="505")
    _add(
        kb,
        NEW,
        "117.5",
        "Each time a player would receive priority, the game first performs "
        "all applicable state-based actions.",
        canonical="117.5",
        change="created",
    )
    _add(kb, FR, "116", "Timing et priorité", title="Timing et priorité", canonical="117")
    frtext = (
        "Le joueur actif reçoit la priorité au début de la plupart des étapes. Voir règle 116.3b."
    )
    _add(
        kb,
        FR,
        "116.3",
        "Le joueur qui a la priorité est déterminé par les règles suivantes :",
        canonical="117.3",
    )
    _add(
        kb,
        FR,
        "116.3a",
        frtext,
        canonical="117.3a",
        refs=_refs(frtext, ("règle 116.3b", "116.3b", True)),
        terms=["priority"],
        term_spans=_spans(frtext, ("priority", "priorité")),
    )
    _add(
        kb,
        FR,
        "116.3b",
        "Le joueur qui a lancé un sort reçoit ensuite la priorité.",
        canonical="117.3b",
    )
    _add(kb, JA, "117", "タイミングと優先権", title="タイミングと優先権", canonical="117")
    _add(
        kb, JA, "117.3", "どのプレイヤーが優先権を持つかは以下のルールで決まる。", canonical="117.3"
    )
    _add(
        kb,
        JA,
        "117.3a",
        "アクティブ・プレイヤーは、ほとんどのステップとフェイズの開始時に優先権を得る。",
        canonical="117.3a",
    )
    _add(kb, JA, "117.3b", "呪文を唱えたプレイヤーはその後優先権を得る。", canonical="117.3b")
    gloss = "Which player can take actions at any given time. See rule 117, “Timing and Priority.”"
    kb.glossary[NEW] = {
        "priority": GlossaryEntry(
            NEW,
            "en",
            "priority",
            "Priority",
            gloss,
            refs=_refs(gloss, ("rule 117", "117", True)),
            rule_refs=["117"],
        ),
        "active player": GlossaryEntry(
            NEW,
            "en",
            "active player",
            "Active Player",
            "The player whose turn it is.",
            see=["priority"],
        ),
        "triggered ability": GlossaryEntry(
            NEW,
            "en",
            "triggered ability",
            "Triggered Ability",
            "An ability that begins with when, whenever or at.",
            aliases=["trigger"],
        ),
    }
    kb.terms = [Term("priority", ["priority"], ["priorité"], ["優先権"], ["117"])]
    kb.examples = [
        ExampleInfo(
            id="shock-response",
            title="Shock in response",
            path="corpus/examples/shock-response.md",
            rules=["117.3b", "117.4"],
            markdown=(
                "Alice casts **Shock**; she gets priority again (rule 117.3b).\n\n"
                "<script>alert('x')</script>[bad](javascript:alert(1))"
            ),
            passed=True,
            trace=[
                {"text": "Alice casts Shock targeting Bob.", "rules": ["601.2"]},
                {"text": "Alice receives priority.", "rules": ["117.3b"]},
                {"text": "Alice passes; Bob passes.", "rules": ["117.4"]},
                {"text": "Shock resolves.", "rules": ["608.2"]},
            ],
            trace_text="...",
        )
    ]
    kb.changes[f"{OLD}..{NEW}"] = [
        Change("moved", "115", "116"),
        Change("moved", "116", "117"),
        Change("same", "116.3a", "117.3a"),
        Change("edited", "116.3b", "117.3b"),
        Change("created", None, "117.5"),
        Change("same", "505", "505"),
    ]
    return kb


@pytest.fixture
def kb() -> KnowledgeBase:
    """A fresh hand-made knowledge base."""
    return sample_kb()


@pytest.fixture
def app(tmp_path: Path, kb: KnowledgeBase) -> Iterator[Flask]:
    """The app over the hand-made base (no search index: search reports it is unavailable)."""
    app = create_app({"INSTANCE": tmp_path, "KB": kb, "TESTING": True})
    yield app
    app.extensions["kb_search"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of :func:`app`."""
    return app.test_client()


# ---- a real instance ---------------------------------------------------------------------------
@pytest.fixture(scope="session")
def web_instance(request: pytest.FixtureRequest) -> Path:
    """The shared session build: embedded corpus plus the shared English editions when present
    (``full_instance``), else the embedded corpus alone (``embedded_instance``). Tests on it must
    hold on both; tests that need the official editions take :func:`full_client`."""
    present = CR_EN_DIR.is_dir() and any(CR_EN_DIR.glob("*.txt"))
    return request.getfixturevalue("full_instance" if present else "embedded_instance")


@pytest.fixture(scope="session")
def real_app(web_instance: Path) -> Iterator[Flask]:
    """The app over the built instance, with its search index."""
    app = create_app({"INSTANCE": web_instance, "TESTING": True})
    yield app
    app.extensions["kb_search"].close()


@pytest.fixture
def real_client(real_app: Flask) -> FlaskClient:
    """A test client of :func:`real_app`."""
    return real_app.test_client()


@pytest.fixture
def full_client(cr_en_dir: Path, real_client: FlaskClient) -> FlaskClient:
    """:func:`real_client` when it serves the official editions, else skip (via ``cr_en_dir``)."""
    return real_client


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Keep each phase's report on the test item, so fixtures can screenshot failures."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


# ---- browser tests (Playwright on Debian's Chromium) ---------------------------------------------
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def need_for_browser(condition: bool, message: str) -> None:
    """Skip a browser test whose prerequisite is missing; in CI, fail instead (they must run)."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(message + ": browser tests must run in CI")
    pytest.skip(message)


@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[object]:
    """Chromium launched from Debian's binary (Playwright never downloads a browser here)."""
    need_for_browser(
        CHROMIUM.exists(), f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


def open_tab(browser, **context_args):  # type: ignore[no-untyped-def]
    """A new context and page, and the list its JavaScript errors and console errors go to."""
    context = browser.new_context(**context_args)
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return context, tab, errors


def watched_tab(browser, base_url: str, request: pytest.FixtureRequest, timeout_ms: int):  # type: ignore[no-untyped-def]
    """A French visitor's tab on ``base_url`` for a fixture to yield: a screenshot is kept when the
    test fails, and any JavaScript error or CSP violation fails it."""
    context, tab, errors = open_tab(
        browser, base_url=base_url, locale="fr-FR", viewport={"width": 1000, "height": 900}
    )
    context.set_default_timeout(timeout_ms)
    yield tab
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert not errors, f"JavaScript errors or CSP violations: {errors}"


@contextmanager
def serving(instance: Path, poll: str = "/en/") -> Iterator[str]:
    """waitress serving ``instance`` on a free loopback port, polled at ``poll`` until it answers
    200; yields the base URL, then closes the server and the app's search index and play pool."""
    from waitress import create_server

    app = create_app({"INSTANCE": instance})
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://127.0.0.1:{server.effective_port}"
    for _ in range(100):
        try:
            with urllib.request.urlopen(url + poll, timeout=1) as response:
                if response.status == 200:
                    break
        except OSError:
            threading.Event().wait(0.05)
    else:
        server.close()
        pytest.fail(f"the live server at {url} never answered {poll}")
    try:
        yield url
    finally:
        server.close()
        if "kb.play" in app.extensions:
            app.extensions["kb.play"].close()
        app.extensions["kb_search"].close()
