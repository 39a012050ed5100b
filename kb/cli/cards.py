"""``kb card NAME``: one card of the instance's card file, by its name in English, French or
Japanese (quoted or not, misspelt by a letter or two), with the rules it uses; and the
``--cards`` option of ``kb build``.

Imports stay inside the command, as for ``kb rule``: an exact name is one indexed query on the
database, opened directly (:meth:`kb.store.cards.CardStore.open`: neither the knowledge model
nor the rules are loaded), so the command answers in a fraction of a second
(tests/bench/bench_cli_start.py); only a name that matches no card exactly loads the name index.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TextIO

LANGS = ("en", "fr", "ja")
WHY_TITLES = {
    "layout": "Layout",
    "keyword": "Keywords",
    "action": "Keyword actions",
    "supertype": "Supertypes",
    "type": "Card types",
    "subtype": "Subtypes",
    "ability word": "Ability words",
    "term": "Glossary terms",
}


def add_parsers(
    sub: Any,
    common: argparse.ArgumentParser,
    build: argparse.ArgumentParser,
    error: type[Exception],
    instance_of: Callable[[argparse.Namespace], Path],
) -> None:
    """Register ``kb card`` and ``kb build --cards``; ``error`` is :class:`kb.cli.main.CommandError`
    and ``instance_of`` its built instance's folder (given, so this module imports no main)."""
    build.add_argument(
        "--cards",
        metavar="PATH",
        help="a card file: MTGJSON AtomicCards or Scryfall Oracle Cards, compressed or not "
        "(remembered by the instance)",
    )
    c = sub.add_parser("card", parents=[common], help="show a card and the rules it uses")
    c.add_argument("name", help="a card's name in English, French or Japanese")
    c.add_argument("--lang", choices=LANGS, default="en")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=partial(cmd_card, error, instance_of))


def cmd_card(
    error: Any,
    instance_of: Callable[[argparse.Namespace], Path],
    args: argparse.Namespace,
    out: TextIO,
) -> int:
    """``kb card NAME``: the card's Oracle text, printed name and text in ``--lang``, rulings
    and the rules it uses; a name matching no card is an error naming the nearest cards."""
    from kb.cards.serialise import card_json
    from kb.store.cards import CardStore

    store = CardStore.open(instance_of(args))
    if store is None:
        raise error("no cards in this build: run `kb build --cards PATH` first", 404)
    if len(args.name) > 200:
        raise error("a card name is at most 200 characters")
    found = store.resolve(args.name, limit=5)
    if not found:
        raise error(f"no card named “{args.name}”", 404)
    row = store.by_id(found[0][0])
    assert row is not None
    data = card_json(row.card, row.uses, args.lang, row.slug)
    data["matched"] = {"name": found[0][2], "lang": found[0][1], "how": found[0][3]}
    if len(found) > 1 and found[0][3] != "exact":
        data["others"] = [name for _, _, name, _ in found[1:]]
    if args.json:
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    write_card(data, out)
    return 0


def write_card(data: dict[str, Any], out: TextIO) -> None:
    """The card as text: name, printed name, each face, rulings, rules used by reason."""
    head = data["name"]
    if data.get("printed_name") and data["printed_name"] != data["name"]:
        head += f"  ({data['printed_name']})"
    out.write(head + "\n")
    if data["matched"]["how"] != "exact":
        out.write(f"(closest match for the name given: {data['matched']['name']})\n")
    for face in data["faces"]:
        if len(data["faces"]) > 1:
            out.write(f"\n— {face['name']}\n")
        cost = f"  {face['mana_cost']}" if face["mana_cost"] else ""
        out.write(f"{face['type_line']}{cost}\n")
        if face["text"]:
            out.write(face["text"] + "\n")
        stats = [face[k] for k in ("power", "toughness") if face[k] is not None]
        if len(stats) == 2:
            out.write("/".join(stats) + "\n")
        for key in ("loyalty", "defense"):
            if face[key] is not None:
                out.write(f"{key.capitalize()}: {face[key]}\n")
        printed = face.get("printed")
        if printed:
            out.write(f"[{data['lang']}] {printed['name']} — {printed['type_line']}\n")
            if printed["text"]:
                out.write(printed["text"] + "\n")
    if data["rulings"]:
        out.write("\nRulings:\n")
        for ruling in data["rulings"]:
            out.write(f"  {ruling['date']}  {ruling['text']}\n")
    if data["rules_by_why"]:
        out.write("\nRules this card uses:\n")
        for group in data["rules_by_why"]:
            title = WHY_TITLES.get(group["why"], group["why"])
            items = ", ".join(f"{r['number']} {r['label']}" for r in group["rules"])
            out.write(f"  {title}: {items}\n")
    if data.get("others"):
        out.write("\nOther matches: " + "; ".join(data["others"]) + "\n")
