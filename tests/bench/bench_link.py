"""Speed of kb.text.references over the official English editions: refs + glossary terms + HTML per rule."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from kb.text.references import find_refs, link_html
from kb.text.termmatch import TermMatcher

RAW = Path(__file__).resolve().parents[2].parent / "shared" / "corpus-raw" / "cr-en"
if len(sys.argv) > 1:
    RAW = Path(sys.argv[1])


def read(path: Path) -> list[str]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def glossary(lines: list[str]) -> dict[str, list[str]]:
    starts = [i for i, line in enumerate(lines) if line.strip() == "Glossary"]
    ends = [i for i, line in enumerate(lines) if line.strip() == "Credits"]
    body = lines[starts[-1] + 1 : ends[-1]]
    terms: dict[str, list[str]] = {}
    fresh = True
    for line in body:
        if not line.strip():
            fresh = True
            continue
        if fresh:
            names = [n.strip() for n in re.sub(r"\(Obsolete\)", "", line).split(",")]
            terms[names[0].lower()] = [n for n in names if n]
        fresh = False
    return terms


def main() -> None:
    files = sorted(RAW.glob("*.txt"))
    editions = [read(f) for f in files]
    t0 = time.perf_counter()
    matchers = [TermMatcher(glossary(lines), "en") for lines in editions]
    t1 = time.perf_counter()
    rules = refs = terms = 0
    for lines, matcher in zip(editions, matchers, strict=True):
        for line in lines:
            m = re.match(r"(\d{3}\.\d+[a-z]?)\.? (.*)", line)
            if not m:
                continue
            text = m.group(2)
            found = find_refs(text, "en")
            words = matcher.find(text, skip=[(r.start, r.end) for r in found])
            link_html(text, found, lambda r: f"/r/{r.number}", words, lambda k: f"/g/{k}")
            rules += 1
            refs += len(found)
            terms += len(words)
    t2 = time.perf_counter()
    sizes = [len(m._lookup) for m in matchers]
    print(f"{len(files)} editions, {rules} rules, {refs} refs, {terms} terms linked")
    print(f"glossary terms per edition: {[len(glossary(e)) for e in editions]}")
    print(f"spellings per matcher: {sizes}")
    print(f"build 6 matchers: {t1 - t0:.2f} s; link all rules: {t2 - t1:.2f} s")


if __name__ == "__main__":
    main()
