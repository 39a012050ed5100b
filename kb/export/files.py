"""The files of an export that are no page of the app: redirect pages, the root, the search
and permalink pages of the static copy, OpenSearch, sitemaps, robots.txt, 404 and static files."""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from typing import Any

from kb.export.pages import SAFE, Site
from kb.export.static import Writer, file_for
from kb.web.i18n import LOCALES

SITEMAP_LIMIT = 50_000  # URLs per sitemap file (the protocol's limit)

#: The export's own wording, in the three interface languages (the app's catalogs stay the web
#: app's; these strings appear only in the static copy).
STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "results": "{n} results for “{q}”",
        "none": "No results for “{q}”.",
        "goto": "Go to rule {n}",
        "loading": "Searching…",
        "noscript": "Search in this static copy of the site needs JavaScript.",
        "unavailable": "Search is not available in this copy (its index was not built).",
        "static_note": "This is a static copy of the site: search runs in your browser. Linking "
        "rule references in your own text (/api/linkify) and search filters need the server "
        "(kb serve).",
        "redirect": "This address moved to",
        "play": "This is a static copy of the site: running a scenario needs the server "
        "(kb serve). The form and its examples are shown as they are.",
        "cards": "This is a static copy of the site: finding a card by a name typed here needs "
        "the server (kb serve). Every card of this build is listed below.",
    },
    "fr": {
        "results": "{n} résultats pour « {q} »",
        "none": "Aucun résultat pour « {q} ».",
        "goto": "Aller à la règle {n}",
        "loading": "Recherche…",
        "noscript": "La recherche dans cette copie statique du site demande JavaScript.",
        "unavailable": "La recherche n’est pas disponible dans cette copie (index non construit).",
        "static_note": "Ceci est une copie statique du site : la recherche se fait dans votre "
        "navigateur. Lier les références de règles d’un texte (/api/linkify) et filtrer la "
        "recherche demandent le serveur (kb serve).",
        "redirect": "Cette adresse a changé :",
        "play": "Ceci est une copie statique du site : exécuter un scénario demande le serveur "
        "(kb serve). Le formulaire et ses exemples sont présentés tels quels.",
        "cards": "Ceci est une copie statique du site : trouver une carte par un nom saisi ici "
        "demande le serveur (kb serve). Toutes les cartes de cette construction sont listées "
        "ci-dessous.",
    },
    "ja": {
        "results": "「{q}」の検索結果 {n} 件",
        "none": "「{q}」に一致する結果はありません。",
        "goto": "ルール {n} へ移動",
        "loading": "検索中…",
        "noscript": "このサイトの静的コピーでの検索には JavaScript が必要です。",
        "unavailable": "このコピーでは検索を利用できません（索引が作成されていません）。",
        "static_note": "これはサイトの静的コピーです。検索はブラウザー内で行われます。"
        "テキスト中のルール参照のリンク化（/api/linkify）と検索の絞り込みにはサーバー"
        "（kb serve）が必要です。",
        "redirect": "このアドレスの移動先：",
        "play": "これはサイトの静的コピーです。シナリオの実行にはサーバー（kb serve）が必要です。"
        "フォームと例はそのまま表示しています。",
        "cards": "これはサイトの静的コピーです。ここに入力した名前でカードを探すにはサーバー"
        "（kb serve）が必要です。このビルドのカードをすべて下に並べています。",
    },
}


_PLAY = re.compile(r"^/(en|fr|ja)/play$")
_CARD_INDEX = re.compile(r"^/(en|fr|ja)/cards/$")


def static_page(site: Site, url: str, body: bytes) -> bytes:
    """A page of the app as the export writes it: the playground and the card index say what
    needs the server (the card index also lists every card, as its search box can't run)."""
    m = _PLAY.match(url) or _CARD_INDEX.match(url)
    if m is None:
        return body
    locale = m.group(1)
    kind = "play" if _PLAY.match(url) else "cards"
    note = f'<p class="notice export-note">{html.escape(STRINGS[locale][kind])}</p>'
    if kind == "cards":
        note += _card_list(site, locale)
    page = body.decode("utf-8")
    at = page.find("</h1>")
    if at < 0:
        return body
    at += len("</h1>")
    return (page[:at] + "\n" + note + page[at:]).encode("utf-8")


def _card_list(site: Site, locale: str) -> str:
    """Every card of the build, by name, linked to its page."""
    from kb.store.cards import CardStore

    store = CardStore.of(site.kb)
    if store is None:
        return ""
    rows = store.slugs()
    items = "".join(
        f'<li><a href="/{locale}/cards/{urllib.parse.quote(slug, safe=SAFE)}" lang="en">'
        f"{html.escape(name)}</a></li>"
        for slug, name in rows
    )
    return f'<ul class="cards export-cards">{items}</ul>'


def redirect_html(
    site: Site, path: str, target: str, *, targets: dict[str, str] | None = None, **extra: Any
) -> bytes:
    locale = path.split("/", 2)[1] if path.split("/", 2)[1] in LOCALES else "en"
    data = {"target": target, "targets": targets or {}, **extra}
    return site.template(
        f"/{locale}/",
        "export/redirect.html",
        target=target,
        data=json.dumps(data, ensure_ascii=False, separators=(",", ":")),
        strings=STRINGS[locale],
    )


def redirect_page(site: Site, writer: Writer, path: str, target: str) -> None:
    writer.put(file_for(path), redirect_html(site, path, target))


def export_extras(site: Site, writer: Writer, base: str, pages: list[str]) -> None:
    """The root, /r/, search pages, OpenSearch, sitemap, robots.txt, 404 and the static files."""
    from kb.web.app import STATIC_DIR

    writer.put(
        "index.html",
        redirect_html(
            site, "/", "/en/", targets={loc: f"/{loc}/" for loc in LOCALES}, permalink=True
        ),
    )
    writer.put(
        "r/index.html",
        site.template("/r/", "export/permalink.html", strings=STRINGS["en"], alternates={}),
    )
    for loc in LOCALES:
        writer.put(
            file_for(f"/{loc}/search"),
            site.template(f"/{loc}/search", "export/search.html", strings=STRINGS[loc]),
        )
        writer.put(
            f"{loc}/opensearch.xml",
            site.template(f"/{loc}/", "export/opensearch.xml", locale=loc, base=base),
        )
    writer.put(
        "opensearch.xml", site.template("/en/", "export/opensearch.xml", locale="en", base=base)
    )
    missing = site.get("/en/this-page-does-not-exist")
    writer.put("404.html", missing.body)
    for path in sorted(STATIC_DIR.rglob("*")):
        if path.is_file():
            writer.put("static/" + path.relative_to(STATIC_DIR).as_posix(), path.read_bytes())
    _sitemaps(writer, base, pages)
    writer.put("robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n".encode())


def _sitemaps(writer: Writer, base: str, pages: list[str]) -> None:
    from xml.sax.saxutils import escape

    chunks = [pages[i : i + SITEMAP_LIMIT] for i in range(0, len(pages), SITEMAP_LIMIT)] or [[]]

    def urlset(urls: list[str]) -> bytes:
        rows = "".join(f"<url><loc>{escape(base + u)}</loc></url>\n" for u in urls)
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{rows}</urlset>\n"
        ).encode()

    if len(chunks) == 1:
        writer.put("sitemap.xml", urlset(chunks[0]))
        return
    names = []
    for n, chunk in enumerate(chunks, 1):
        names.append(f"sitemap-{n}.xml")
        writer.put(names[-1], urlset(chunk))
    rows = "".join(f"<sitemap><loc>{escape(base)}/{name}</loc></sitemap>\n" for name in names)
    writer.put(
        "sitemap.xml",
        (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{rows}</sitemapindex>\n"
        ).encode(),
    )
