"""The checkers' messages and their gettext catalogs, one per language:
``minigrad/exercises/locale/<language>/LC_MESSAGES/checkers.po``.

    python -m tools.checker_messages     # extract, update every catalog, list what lacks a translation

A checker writes each message as one English constant: ``_("...")`` (placeholders named and filled
by ``.format``), ``N_("...")`` for a text kept in a constant and translated where it is printed,
and the title given to ``@exercise("...")``. Babel extracts them from ``minigrad/exercises/*.py``;
updating a catalog adds the new messages with an empty translation and drops those no checker
uses any more (a translator fills the empty ones; tests/course/test_translations.py fails until
then). The checkers read the ``.po`` itself at run time (``_feedback._translations``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po

from minigrad.exercises._feedback import LANGUAGES, catalog_path

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "minigrad" / "exercises"
KEYWORDS = {"_": None, "N_": None, "exercise": None}


def extracted() -> Catalog:
    """Every message of the checkers, each with the files that print it."""
    template = Catalog(project="minigrad checkers", fuzzy=False)
    for path in sorted(EXERCISES.glob("*.py")):
        with open(path, "rb") as source:
            for _, message, comments, context in extract("python", source, keywords=KEYWORDS):
                template.add(message, locations=[(path.relative_to(ROOT).as_posix(), None)], context=context)
    return template


def read(language: str) -> Catalog:
    with open(catalog_path(language), "rb") as po:
        return read_po(po, locale=language)


def write(catalog: Catalog, language: str) -> None:
    with open(catalog_path(language), "wb") as po:
        write_po(po, catalog, width=100, ignore_obsolete=True, include_lineno=False, sort_output=False)


def update(language: str) -> list[str]:
    """Bring the language's catalog in step with the checkers; return the messages it lacks."""
    catalog = read(language)
    template = extracted()
    template.creation_date = catalog.creation_date   # the file changes only when a message does
    catalog.update(template, no_fuzzy_matching=True)
    write(catalog, language)
    return untranslated(catalog)


def messages(language: str) -> dict[str, str]:
    """The language's catalog as a dict: English message -> its translation."""
    return {message.id: message.string for message in read(language) if message.id}


def untranslated(catalog: Catalog) -> list[str]:
    return [message.id for message in catalog if message.id and (not message.string or message.fuzzy)]


def main(argv: list[str]) -> int:
    missing = {language: update(language) for language in LANGUAGES if language != "en"}
    for language, messages in missing.items():
        for message in messages:
            print(f"{catalog_path(language).relative_to(ROOT)}: no translation for {message!r}")
    if not any(missing.values()):
        print("every checker message has a translation")
    return 1 if any(missing.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
