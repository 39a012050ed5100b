"""Render a sample of pages and compare them with a snapshot taken before a change.

Usage::

    python tests/bench/compare_pages.py --instance DIR --save before.json.gz   # before
    python tests/bench/compare_pages.py --instance DIR --against before.json.gz  # after

The sample: rule pages of several editions in en, fr and ja (current and pinned), their JSON
twins, and every other page family once per locale, rendered in-process with the page cache
off: status, headers and body. Only the static files' version (``?v=<digest of the code>``) is
normalised, as it changes with any edit of the code by design; the ETag header, which follows
it, is left out. Exit status 1 when a page differs (the first differences are printed with the
URL).
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import random
import re
import sys
from pathlib import Path

from kb.knowledge.model import KnowledgeBase

_VERSION = re.compile(r"\?v=[0-9a-f]{16}")


def sample_urls(kb: KnowledgeBase, count: int) -> list[str]:
    """Distinct URLs over page families, editions and locales (the same for the same build)."""
    rng = random.Random(9)
    eds = kb.editions_of("en", full_only=True)
    picked = [*eds[:: max(1, len(eds) // 6)][:6], eds[-1]]
    urls: list[str] = []
    for ed in picked:
        numbers = kb.ordered_numbers(ed.id)
        for number in rng.sample(numbers, min(len(numbers), count // (2 * len(picked)) + 1)):
            loc = rng.choice(("en", "fr", "ja"))
            urls.append(f"/{loc}/{ed.id}/rules/{number}")
    current = [c for c in kb.concordance if ":" not in c]
    for canonical in rng.sample(current, min(len(current), count // 2)):
        loc = rng.choice(("en", "fr", "ja"))
        urls.append(f"/{loc}/rules/{canonical}")
    urls += [u + ".json" for u in rng.sample(urls, min(len(urls), count // 10))]
    for ed in kb.editions.values():
        if ed.lang != "en":
            for number in kb.ordered_numbers(ed.id)[:3]:
                urls.append(f"/{ed.lang}/{ed.id}/rules/{number}")
    for loc in ("en", "fr", "ja"):
        urls += [
            f"/{loc}/",
            f"/{loc}/rules/",
            f"/{loc}/glossary/",
            f"/{loc}/editions/",
            f"/{loc}/examples/",
            f"/{loc}/rules/117.3b",
            f"/{loc}/rules/702.19b",
            f"/{loc}/rules/999.9z",
            f"/{loc}/glossary/priority",
            f"/{loc}/editions.json",
        ]
        if len(eds) >= 2:
            urls.append(f"/{loc}/editions/{eds[-2].id}..{eds[-1].id}")
            urls.append(f"/{loc}/editions/{eds[0].id}..{eds[-1].id}")
    return list(dict.fromkeys(urls))


def render(instance: Path, urls: list[str]) -> dict[str, str]:
    """``url -> "status\\nbody"`` rendered by the app in-process, page cache off."""
    from kb.web import create_app

    app = create_app({"INSTANCE": instance, "PAGE_CACHE": False})
    client = app.test_client()
    out = {}
    for url in urls:
        response = client.get(url)
        body = _VERSION.sub("?v=*", response.get_data(as_text=True))
        # The headers too, but the ETag (it follows the code's digest by design).
        headers = "".join(
            f"{name}: {_VERSION.sub('?v=*', value)}\n"
            for name, value in sorted(response.headers.items())
            if name.lower() != "etag"
        )
        out[url] = f"{response.status_code}\n{headers}\n{body}"
    return out


def main() -> int:
    """Save or compare a snapshot."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--instance", type=Path, required=True)
    ap.add_argument("--count", type=int, default=600, help="rule pages in the sample")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path)
    group.add_argument("--against", type=Path)
    args = ap.parse_args()
    from kb.build import load

    if args.save:
        urls = sample_urls(load(args.instance), args.count)
        pages = render(args.instance, urls)
        with gzip.open(args.save, "wt", encoding="utf-8") as fh:
            json.dump(pages, fh, ensure_ascii=False)
        print(f"saved {len(pages)} pages to {args.save}")
        return 0
    with gzip.open(args.against, "rt", encoding="utf-8") as fh:
        before = json.load(fh)
    after = render(args.instance, list(before))
    differ = [u for u in before if before[u] != after[u]]
    for url in differ[:5]:
        print(f"--- {url}")
        diff = difflib.unified_diff(
            before[url].splitlines(), after[url].splitlines(), "before", "after", n=1, lineterm=""
        )
        print("\n".join(list(diff)[:40]))
    print(f"{len(before) - len(differ)} of {len(before)} pages identical; {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
