"""The URLs the server answers, to compare with an export (tests/test_export_versions.py and
tests/bench/bench_export.py): the pages and redirects the knowledge base names in every locale
and edition, their JSON twins, other spellings the server takes, and the links of the pages."""

from __future__ import annotations

import random
import urllib.parse
from pathlib import Path
from typing import Any

from kb.export.pages import Site, internal_links, permalink_numbers, quote_path, seed_urls
from kb.export.redirects import StaticHost
from kb.export.static import json_twin


def candidate_urls(kb: Any, out: Path, pages: int = 300, seed: int = 28) -> list[str]:
    """URLs a visitor may ask the server for (not all answered: the server says which)."""
    urls = seed_urls(kb)  # every pinned rule in every locale, not only the version pages
    urls += [json_twin(u) for u in urls]
    for loc in ("en", "fr", "ja"):
        for number in list(kb.concordance)[:400]:
            if len(number) > 3 and number[:3].isdigit():
                urls.append(f"/{loc}/rules/R{number.replace('.', '')}")
        for entries in list(kb.glossary.values())[-1:]:
            urls += [f"/{loc}/glossary/{e.term}" for e in entries.values()]
    urls += [f"/r/{n}" for n in permalink_numbers(kb)]
    urls += ["/fr/glossary/priorité", "/en/rules/R1173a"]
    # links of the site's pages (the export's pages are the server's bytes)
    rng = random.Random(seed)
    files = sorted(out.glob("*/rules/*/index.html")) + sorted(out.glob("*/*/rules/*/index.html"))
    for file in rng.sample(files, min(pages, len(files))):
        urls += [link.split("?")[0] for link in internal_links(file.read_text(encoding="utf-8"))]
    return list(dict.fromkeys(quote_path(u) for u in urls if u.startswith("/")))


def compare(site: Site, out: Path, urls: list[str]) -> tuple[int, list[tuple[str, int, int]]]:
    """How many of ``urls`` the server answers (200 or a redirect), and those of them the
    export does not: (URL, server status, export status after redirects)."""
    host = StaticHost(out)
    answered, absent = 0, []
    for url in urls:
        status = site.get(url).status
        if status not in (200, 301, 302, 303, 307, 308):
            continue
        answered += 1
        final, _ = host.final(url)
        if final != 200:
            absent.append((urllib.parse.unquote(url), status, final))
    return answered, absent
