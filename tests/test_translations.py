"""The Chinese edition cannot drift from the English one.

notebooks/zh/*.ipynb are built by tools/translate.py from the English notebooks and the catalogs in
notebooks/zh/translations/; the checkers' Chinese feedback comes from
minigrad/exercises/messages_zh.py. These tests fail, naming the cell or the message, when an English
text changed (or appeared) without its translation, or when a Chinese notebook was edited by hand.
"""
from __future__ import annotations

import io
import json
import re
import shutil
import tokenize
from pathlib import Path

import pytest

from minigrad.exercises import _feedback, nb00
from minigrad.exercises._feedback import template_parts, translate
from minigrad.exercises.messages_zh import MESSAGES
from tools import translate as tr

ENGLISH = tr.english_paths()
NAMES = [path.name for path in ENGLISH]
GLOSSARY = tr.CHINESE / "GLOSSARY.md"


def chinese(path: Path) -> dict:
    return tr.read_json(tr.CHINESE / path.name)


def code_without_comments(source: str) -> list[tuple[int, str]]:
    return [(token.type, token.string) for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type not in (tokenize.COMMENT, tokenize.NL)]


def test_every_english_notebook_has_a_chinese_edition_and_a_catalog():
    assert len(ENGLISH) == 11
    missing = [f"notebooks/zh/{path.name}" for path in ENGLISH if not (tr.CHINESE / path.name).exists()]
    missing += [str(tr.catalog_path(path).relative_to(tr.ROOT)) for path in ENGLISH
                if not tr.catalog_path(path).exists()]
    assert not missing, "missing (run python -m tools.translate build): " + ", ".join(missing)


@pytest.mark.parametrize("name", NAMES)
def test_both_editions_have_the_same_cells_in_the_same_order(name):
    english = tr.read_json(tr.ENGLISH / name)
    zh = tr.read_json(tr.CHINESE / name)
    assert [(c["id"], c["cell_type"]) for c in zh["cells"]] == [(c["id"], c["cell_type"]) for c in english["cells"]]
    for en_cell, zh_cell in zip(english["cells"], zh["cells"]):
        assert zh_cell["metadata"] == en_cell["metadata"], f"{name} cell id {en_cell['id']}: metadata differs"
        if en_cell["cell_type"] == "code":
            zh_code = tr.source_of(zh_cell).replace(tr.SET_LANGUAGE, "")
            assert code_without_comments(zh_code) == code_without_comments(tr.source_of(en_cell)), \
                f"{name} cell id {en_cell['id']}: the code differs (only comments may)"
    assert zh["metadata"] == english["metadata"]


@pytest.mark.parametrize("name", NAMES)
def test_the_chinese_set_up_cell_switches_the_checkers_to_chinese(name):
    setups = [cell for cell in chinese(tr.ENGLISH / name)["cells"]
              if cell["cell_type"] == "code" and tr.SET_LANGUAGE in tr.source_of(cell)]
    english_setups = [cell for cell in tr.read_json(tr.ENGLISH / name)["cells"]
                      if "set_language" in tr.source_of(cell)]
    assert len(setups) == 1 and not english_setups


@pytest.mark.parametrize("name", NAMES)
def test_every_english_text_has_an_up_to_date_translation(name):
    found = tr.problems(tr.ENGLISH / name)
    if found:
        pytest.fail("update notebooks/zh/translations/" + name.replace(".ipynb", ".md")
                    + " (python -m tools.translate status --show):\n" + "\n".join(map(str, found)))


@pytest.mark.parametrize("name", NAMES)
def test_rebuilding_from_the_catalogs_reproduces_the_committed_chinese_notebook(name):
    english = tr.ENGLISH / name
    rebuilt = tr.build_notebook(tr.read_json(english), tr.read_catalog(english))
    committed = chinese(english)
    for new, old in zip(rebuilt["cells"], committed["cells"]):
        assert tr.source_of(new) == tr.source_of(old), (
            f"notebooks/zh/{name} cell id {old['id']} differs from its catalog: edit "
            f"notebooks/zh/translations/{english.stem}.md, not the notebook, then run "
            "python -m tools.translate build")


def first_cell(nb: dict, kind: str) -> tuple[int, dict]:
    return next((number, cell) for number, cell in enumerate(nb["cells"])
                if cell["cell_type"] == kind and tr.translatable_text(cell))


def test_changing_an_english_markdown_cell_names_the_stale_translation(tmp_path):
    original = tr.ENGLISH / "04_where_ctx_comes_from.ipynb"
    copy = tmp_path / original.name
    shutil.copy(original, copy)
    nb = tr.read_json(copy)
    catalog = tr.read_catalog(original)
    current = {p.cell_id for p in tr.problems(original, catalog=catalog)}
    number, cell = next((number, cell) for number, cell in enumerate(nb["cells"])
                        if cell["cell_type"] == "markdown" and cell["id"] in catalog and cell["id"] not in current)
    cell["source"] = tr.source_of(cell) + "\nOne more English sentence."
    copy.write_text(json.dumps(nb), encoding="utf-8")
    found = [str(p) for p in tr.problems(copy, catalog=catalog) if p.cell_id == cell["id"]]
    assert found == [f"notebooks/04_where_ctx_comes_from.ipynb cell {number} (id {cell['id']}) "
                     "changed since it was translated"]


def test_changing_a_code_comment_names_the_stale_translation_but_not_a_code_change():
    english = tr.ENGLISH / "05_save_for_backward.ipynb"
    nb, catalog = tr.read_json(english), tr.read_catalog(english)
    number, cell = first_cell(nb, "code")
    cell["source"] = "extra = 1\n" + tr.source_of(cell)   # code only: the translation still fits
    assert not [p for p in tr.problems(english, nb, catalog) if p.cell_id == cell["id"] and p.kind == "changed"]
    assert tr.build_notebook(nb, catalog)["cells"][number]["source"][0] == "extra = 1\n"
    cell["source"] = tr.source_of(cell) + "  # a new comment"
    assert [p.kind for p in tr.problems(english, nb, catalog) if p.cell_id == cell["id"]] == ["changed"]


def test_a_new_english_cell_is_reported_as_missing_and_an_entry_without_cell_as_orphan():
    english = tr.ENGLISH / "00_start_here.ipynb"
    nb, catalog = tr.read_json(english), tr.read_catalog(english)
    nb["cells"].append({"cell_type": "markdown", "id": "brand-new", "metadata": {}, "source": "New text."})
    removed = nb["cells"].pop(0)
    found = {(p.kind, p.cell_id) for p in tr.problems(english, nb, catalog)}
    assert {("missing", "brand-new"), ("orphan", removed["id"])} <= found
    assert "brand-new" not in {p.cell_id for p in tr.problems(english)}


# ---------------------------------------------------------------- the checkers' feedback


def test_every_checker_message_has_a_chinese_translation():
    missing = tr.untranslated_messages()
    if missing:
        pytest.fail("add these English messages to minigrad/exercises/messages_zh.py "
                    "(python -m tools.translate messages):\n" + "\n".join(missing))


def fields(text: str) -> list[str]:
    return [value for kind, value in template_parts(text) if kind == "field"]


@pytest.mark.parametrize("english", sorted(MESSAGES))
def test_a_chinese_message_keeps_the_english_placeholders_and_is_found_again(english):
    chinese_text = MESSAGES[english]
    assert set(fields(chinese_text)) <= set(fields(english)), f"{chinese_text!r} has a placeholder {english!r} lacks"
    assert chinese_text == english or re.search(r"[\u4e00-\u9fff]", chinese_text), \
        f"{english!r} is not translated (a message that is only code maps to itself)"
    values = {field: f"<value {number}>" for number, field in enumerate(fields(english))}
    printed = "".join(values.get(v, v) if kind == "field" else v for kind, v in template_parts(english))
    expected = "".join(values.get(v, v) if kind == "field" else v for kind, v in template_parts(chinese_text))
    if fields(english) and not "".join(v for kind, v in template_parts(english) if kind == "text"):
        return   # a bare "{error}" is never translated
    assert translate(printed, "zh") == expected


@pytest.fixture
def in_chinese():
    _feedback.set_language("zh")
    yield
    _feedback.set_language("en")


def test_the_checkers_answer_in_chinese_after_set_language(in_chinese, capsys):
    assert not nb00.your_turn_1([1.0, 2.0, 3.0])
    printed = capsys.readouterr().out
    assert printed.startswith("✗ " + MESSAGES[nb00.your_turn_1.title] + " — 还不对。\n  问题：")
    assert "提示：" in printed and "What is wrong" not in printed and "Hint" not in printed


def test_the_checkers_answer_in_english_by_default(capsys):
    assert nb00.your_turn_1([2.0, 4.0, 6.0])
    assert capsys.readouterr().out == f"✓ {nb00.your_turn_1.title} — correct.\n"


# ---------------------------------------------------------------- the glossary


def glossary_rows() -> list[tuple[str, str, list[str]]]:
    """(English term, Chinese term, forbidden alternatives) from GLOSSARY.md's table."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and line.startswith("|") and not set(cells[0]) <= set("-: ") and cells[0] != "English":
            forbidden = [word.strip() for word in cells[2].split("、") if word.strip() and word.strip() != "—"]
            rows.append((cells[0], cells[1], forbidden))
    return rows


def chinese_texts() -> list[tuple[str, str]]:
    texts = [(f"notebooks/zh/translations/{path.name}", path.read_text(encoding="utf-8"))
             for path in sorted(tr.CATALOGS.glob("*.md"))]
    texts.append(("minigrad/exercises/messages_zh.py", "\n".join(MESSAGES.values())))
    cheat_sheet = tr.CHINESE / "ctx_cheatsheet.md"
    texts.append(("notebooks/zh/ctx_cheatsheet.md", cheat_sheet.read_text(encoding="utf-8")))
    readme = tr.ROOT / "README.zh.md"
    if readme.exists():
        texts.append(("README.zh.md", readme.read_text(encoding="utf-8")))
    return texts


def test_the_glossary_names_the_course_terms():
    terms = {term.strip(): zh for english, zh, _ in glossary_rows() for term in english.split(",")}
    for english, zh in [("static method", "静态方法"), ("context", "上下文"), ("backward pass", "反向传播"),
                        ("leaf node", "叶子节点"), ("computational graph", "计算图"), ("gradient", "梯度")]:
        assert zh in terms.get(english, ""), f"GLOSSARY.md: {english} should be {zh}"


def test_glossary_terms_are_used_consistently():
    offences = [f"{where}: {word!r} (the glossary says {zh} for {english})"
                for english, zh, forbidden in glossary_rows() for word in forbidden
                for where, text in chinese_texts() if word in text]
    assert not offences, "\n".join(offences)


def test_every_chinese_message_is_still_used_by_a_checker():
    used = {text for path in tr.checker_paths() for _, text in tr.checker_messages(path)}
    own = {"— correct.", "— not yet.", "— not written yet.", "— your code raised an error.", "What is wrong:",
           "Hint:", "Your code raised NotImplementedError:",
           "Replace the stub with your answer and run this check again.", "Your turn 0: the number two"}
    stale = sorted(set(MESSAGES) - used - own)
    assert not stale, ("minigrad/exercises/messages_zh.py translates messages no checker prints any more "
                       "(reworded? update the key):\n" + "\n".join(map(repr, stale)))


# ---------------------------------------------------------------- the ctx cheat sheet


def table_members(path: Path) -> list[str]:
    """The first column of every table row of a markdown page, header and rule rows left out."""
    rows = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    first = [row.strip("|").split("|")[0].strip() for row in rows]
    return [cell for cell in first if cell.startswith("`")]


def test_the_chinese_cheat_sheet_lists_the_same_ctx_members_in_the_same_order():
    english = table_members(tr.ENGLISH / "ctx_cheatsheet.md")
    assert len(english) == 10 and english[0] == "`ctx.save_for_backward(*tensors)`"
    assert table_members(tr.CHINESE / "ctx_cheatsheet.md") == english, \
        "notebooks/zh/ctx_cheatsheet.md has other rows than notebooks/ctx_cheatsheet.md: update the translation"


def test_the_chinese_notebooks_link_to_the_chinese_cheat_sheet():
    for name in ("00_start_here.md", "02_static_methods.md"):
        text = (tr.CATALOGS / name).read_text(encoding="utf-8")
        assert "](ctx_cheatsheet.md)" in text and "](../ctx_cheatsheet.md)" not in text, name
