"""The hover script's reference finder (kb-embed.js, run in node) reads what kb.text.references.find_refs reads.

One table of cases (tests/fixtures/ref_cases.json) and generated texts go through both finders;
numbers, labels and spans must be equal. Also: the script stays under 10 KB minified.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.base.paths import CORPUS_DIR
from kb.text.references import find_refs
from kb.web.app import STATIC_DIR

SCRIPT = STATIC_DIR / "kb-embed.js"
CR_EN_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "corpus-raw" / "cr-en"
REF_CASES = Path(__file__).resolve().parent / "fixtures" / "ref_cases.json"
CASES = [tuple(c) for c in json.loads(REF_CASES.read_text(encoding="utf-8"))["cases"]]
#: The goal of issue 14: small enough to include anywhere, no build step.
MAX_MINIFIED_BYTES = 10 * 1024

# Reads [[text, lang], ...] on stdin, prints [[[number, label, start, end], ...], ...] with offsets
# in code points (JavaScript counts UTF-16 units; Python counts code points).
_DRIVER = """
const {findRefs} = require(process.argv[1]);
const cp = (s, i) => Array.from(s.slice(0, i)).length;
let input = "";
process.stdin.on("data", d => input += d).on("end", () => {
  const out = JSON.parse(input).map(([text, lang]) =>
    findRefs(text, lang).map(r => [r.number, r.label, cp(text, r.start), cp(text, r.end)]));
  process.stdout.write(JSON.stringify(out));
});
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is needed to test kb-embed.js (apt-get install nodejs)")
        pytest.skip("node not found")
    return node


def js_find(texts: list[tuple[str, str]]) -> list[list[list[object]]]:
    """The JavaScript finder's refs of each (text, lang), in one node process."""
    done = subprocess.run(
        [_node(), "-e", _DRIVER, str(SCRIPT)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def py_find(text: str, lang: str) -> list[list[object]]:
    return [[r.number, r.label, r.start, r.end] for r in find_refs(text, lang)]


@pytest.fixture(scope="module")
def js_cases() -> list[list[list[object]]]:
    return js_find([(text, lang) for text, lang, _ in CASES])


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0][:40] for c in CASES])
def test_js_finder_reads_the_shared_cases_as_python_does(
    js_cases: list[list[list[object]]], index: int
) -> None:
    text, lang, expected = CASES[index]
    assert js_cases[index] == py_find(text, lang)
    assert [r[0] for r in js_cases[index]] == expected


_PIECES = [
    "rule ", "rules ", "Rule ", "règle ", "RÈGLE ", "CR ", "CR", "section ", "see ", "See ",
    "Cf. ", "voir ", "ルール", "第", "項", "参照", " 参照", "、", "・", "と", "および",
    "117", "117.3", "117.3b", "601.2f", "903.11", "5", "614", "100", "1170", "12", "0",
    "–h", "-3", "–903.11", "~h", "〜b", " à 601.2h", "-a", "–z",
    ", ", " and ", " or ", " et ", ", and ", ".", ";", ")", "(", " ", "\u00a0", "\u3000",
    "\u2009", "\n", "“Dash,” ", "“Blitz.”", ' "Title" ', "« Titre »", "〔待機〕", "「キッカー」",
    "b", " b", "１１７．３ａ", "ﾙｰﾙ", "$", "€", "/", "x", "é", "🂡",
]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(_PIECES), min_size=1, max_size=14).map("".join),
            st.sampled_from(["en", "fr", "ja"]),
        ),
        min_size=20,
        max_size=20,
    )
)
def test_js_finder_agrees_on_generated_texts(batch: list[tuple[str, str]]) -> None:
    """Random texts made of the pieces references are made of: both finders agree."""
    for (text, lang), js in zip(batch, js_find(batch), strict=True):
        assert js == py_find(text, lang), (text, lang)


def _lines(path: Path) -> list[str]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252")
    return [line for line in text.splitlines() if any(c.isdigit() for c in line)]


def test_js_finder_agrees_on_the_corpus() -> None:
    """Every line with a digit of the embedded sources (en, fr, ja) and of the newest official
    English edition (when ../shared is there): both finders read the same references."""
    texts = [
        (line, path.name[:2])
        for path in sorted((CORPUS_DIR / "sources").glob("*.txt"))
        for line in _lines(path)
    ]
    official = sorted(CR_EN_DIR.glob("*.txt")) if CR_EN_DIR.is_dir() else []
    texts += [(line, "en") for line in (_lines(official[-1]) if official else [])]
    assert {lang for _, lang in texts} == {"en", "fr", "ja"}
    found = js_find(texts)
    differ = [(t, js) for t, js in zip(texts, found, strict=True) if js != py_find(*t)]
    assert not differ, differ[:3]


def test_script_is_small_and_needs_no_build() -> None:
    rjsmin = pytest.importorskip("rjsmin")
    source = SCRIPT.read_text(encoding="utf-8")
    minified = rjsmin.jsmin(source).encode()
    print(f"kb-embed.js: {len(source.encode())} bytes, {len(minified)} bytes minified")
    assert len(minified) < MAX_MINIFIED_BYTES
    # the minified script still works: it is plain ES2018, no module syntax, no import
    assert "import " not in source and "export " not in source
