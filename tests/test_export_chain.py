"""The pinned rules of an export: a page per version, a stub every ``CHAIN`` editions, and the
per-edition patterns of ``_redirects`` for the rest; whatever the number of editions, a pinned
URL reaches its version's page in at most ``CHAIN`` redirects, and always the right version."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from kb.export.redirects import REDIRECTS, StaticHost, redirect_lines, stub_pairs
from kb.export.versions import CHAIN, Versions


@dataclass
class FakeRule:
    number: str
    text: str
    kind: str = "rule"
    title: str | None = None
    examples: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)


class FakeKB:
    """Editions of one language as a knowledge base shows them to :class:`Versions`."""

    def __init__(self, texts: dict[str, dict[str, str]], partial: tuple[str, ...] = ()) -> None:
        self.editions = {
            ed: SimpleNamespace(id=ed, lang="en", kind="partial" if ed in partial else "full")
            for ed in texts
        }
        self.rules = {
            ed: {n: FakeRule(n, text) for n, text in rules.items()} for ed, rules in texts.items()
        }

    def editions_of(self, lang: str) -> list[SimpleNamespace]:
        return [e for e in self.editions.values() if e.lang == lang]

    def ordered_numbers(self, ed_id: str) -> list[str]:
        return list(self.rules[ed_id])


def editions(count: int) -> list[str]:
    return [f"en-{2000 + i}-01-01" for i in range(count)]


def serve(kb: FakeKB, versions: Versions, tmp: Path) -> StaticHost:
    """The export's files for the pinned rules (a version's page and twin, a stub page) and its
    _redirects, read back as a host serves them."""
    for ed in kb.editions:
        for number in kb.rules[ed]:
            if (ed, number) not in versions.moved:
                page = tmp / "en" / ed / "rules" / number / "index.html"
                page.parent.mkdir(parents=True, exist_ok=True)
                page.write_text(f"{ed} {number}")
                (page.parent.parent / f"{number}.json").write_text("{}")
    for source, target in stub_pairs(versions):
        stub = tmp / source.strip("/") / "index.html"
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text(f'<meta name="kb-redirect"><link rel="canonical" href="{target}">')
    (tmp / REDIRECTS).write_text("\n".join(redirect_lines(kb, versions)))
    return StaticHost(tmp)


def hops(host: StaticHost, url: str) -> tuple[int, str]:
    """How many redirects a client follows from ``url``, and where it ends."""
    count = 0
    location = host.answer(url)[1]
    while location is not None:
        count, url = count + 1, location
        location = host.answer(url)[1]
    return count, url


def test_a_rule_unchanged_in_forty_editions_has_a_stub_every_chain_editions(
    tmp_path: Path,
) -> None:
    eds = editions(40)
    kb = FakeKB({ed: {"100.1": "same", "100.2": f"changed in {ed}"} for ed in eds})
    versions = Versions(kb)
    # 100.2 changed every time: a page each; 100.1: one page and a stub every CHAIN editions
    assert {(ed, "100.2") for ed in eds}.isdisjoint(versions.moved)
    assert sorted(eds.index(ed) for ed, n in versions.stubs) == list(range(CHAIN, 40, CHAIN))
    host = serve(kb, versions, tmp_path)
    for ed in eds:
        count, final = hops(host, f"/fr/{ed}/rules/100.1")
        assert final == f"/en/{eds[0]}/rules/100.1"
        assert count <= CHAIN + 1  # the language's redirect, then at most CHAIN
    assert host.final(f"/en/{eds[-1]}/rules/100.2.json")[1] == f"/en/{eds[-1]}/rules/100.2.json"


def test_a_rule_that_comes_back_to_an_older_text_goes_to_that_version(tmp_path: Path) -> None:
    eds = editions(5)
    texts = ["old", "new", "old", "old", "new"]
    kb = FakeKB({ed: {"117.4": text} for ed, text in zip(eds, texts, strict=True)})
    versions = Versions(kb)
    host = serve(kb, versions, tmp_path)
    # edition 2 prints what edition 0 did: the edition before (1) shows another text, so a stub
    assert (eds[2], "117.4") in versions.stubs
    assert host.final(f"/en/{eds[2]}/rules/117.4")[1] == f"/en/{eds[0]}/rules/117.4"
    assert host.final(f"/en/{eds[3]}/rules/117.4")[1] == f"/en/{eds[0]}/rules/117.4"
    assert host.final(f"/en/{eds[4]}/rules/117.4")[1] == f"/en/{eds[1]}/rules/117.4"


def test_a_partial_edition_between_two_full_ones_breaks_no_chain(tmp_path: Path) -> None:
    eds = editions(4)
    texts = {
        eds[0]: {"100.1": "a", "702.2": "k"},
        eds[1]: {"702.2": "quoted"},  # a partial text: one rule
        eds[2]: {"100.1": "a", "702.2": "k"},
        eds[3]: {"100.1": "a", "702.2": "k"},
    }
    kb = FakeKB(texts, partial=(eds[1],))
    versions = Versions(kb)
    assert versions.previous[eds[2]] == eds[0]  # the full edition before, not the partial one
    host = serve(kb, versions, tmp_path)
    for ed in eds[2:]:
        assert host.final(f"/en/{ed}/rules/100.1")[1] == f"/en/{eds[0]}/rules/100.1"
        assert host.final(f"/ja/{ed}/rules/702.2")[1] == f"/en/{eds[0]}/rules/702.2"
    assert host.final(f"/en/{eds[1]}/rules/702.2") == (200, f"/en/{eds[1]}/rules/702.2")
    lines = list(redirect_lines(kb, versions))
    assert len(lines) == 3 * 2 * len(eds) + len(eds) - 1  # patterns per edition, never per rule
