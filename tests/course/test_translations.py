"""The Chinese edition cannot drift from the English one.

notebooks/zh/*.ipynb are built by tools/translate.py from the English notebooks and the catalogs in
notebooks/zh/translations/; the checkers' Chinese feedback comes from the gettext catalog
minigrad/exercises/locale/zh/LC_MESSAGES/checkers.po. These tests fail, naming the cell or the message, when an English
text changed (or appeared) without its translation, or when a Chinese notebook was edited by hand.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import string
import unicodedata
from pathlib import Path
from typing import NamedTuple

import pytest

from minigrad.exercises import _feedback, nb00
from minigrad.exercises._feedback import translate
from tools import checker_messages
from tools import translate as tr

ENGLISH = tr.english_paths()
MESSAGES = checker_messages.messages("zh")
NAMES = [path.name for path in ENGLISH]
GLOSSARY = tr.CHINESE / "GLOSSARY.md"


def chinese(path: Path) -> dict:
    return tr.read_json(tr.CHINESE / path.name)


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
            assert tr.code_shape(zh_code) == tr.code_shape(tr.source_of(en_cell)), \
                f"{name} cell id {en_cell['id']}: the code differs (only comments and what strings say may)"
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


# ---------------------------------------------------------------- strings in code cells

STRINGS_CELL = {"cell_type": "code", "id": "strings", "metadata": {}, "outputs": [], "execution_count": None,
                "source": 'def area(w, h):\n    """Width times height."""\n    return w * h\n\n'
                          'print("area:", area(2, 3))  # six\nprint(f"{2} by {3} is {area(2, 3)}")\n'}


def strings_entry(*lines: str) -> tr.Entry:
    return tr.Entry(0, "code", "strings", tr.fingerprint("# six"), "\n".join(lines))


def test_a_code_entry_translates_the_cells_own_strings_and_comments():
    entry = strings_entry("# 六", '"Width times height." → "宽乘以高。"', '"area:" → "面积："',
                          '"{2} by {3} is {area(2, 3)}" → "{2} 乘 {3} 等于 {area(2, 3)}"')
    assert entry.comment_lines == ["# 六"] and len(entry.replacements) == 3
    assert tr.chinese_source(STRINGS_CELL, entry) == (
        'def area(w, h):\n    """宽乘以高。"""\n    return w * h\n\n'
        'print("面积：", area(2, 3))  # 六\nprint(f"{2} 乘 {3} 等于 {area(2, 3)}")\n')


@pytest.mark.parametrize("line, why", [
    ('"perimeter:" → "周长："', 'the catalog replaces "perimeter:", which is no longer in the English cell'),
    ('"area:\", area(2, 3))  #" → "面积：\", area(3, 2))  #"', "change the code"),   # reaches outside a string
    ('"{2} by {3} is {area(2, 3)}" → "{area(2, 3)} 等于 {2} 乘 {3}"', "change the code"),   # fields reordered
    ('"print(" → "печать("', "change the code"),
])
def test_a_replacement_that_no_longer_fits_stops_the_build_and_is_reported(line, why):
    entry = strings_entry("# 六", line)
    with pytest.raises(tr.ReplacementError, match=re.escape(why)):
        tr.chinese_source(STRINGS_CELL, entry)
    nb = {"cells": [STRINGS_CELL]}
    found = tr.problems(tr.ENGLISH / "00_start_here.ipynb", nb, {"strings": entry})
    assert [(p.kind, p.cell_id) for p in found] == [("strings", "strings")] and why in str(found[0])


def test_changing_an_english_string_that_the_catalog_translates_names_the_cell():
    english = tr.ENGLISH / "03_tensors_and_the_graph.ipynb"
    nb, catalog = tr.read_json(english), tr.read_catalog(english)
    number, cell = next((number, cell) for number, cell in enumerate(nb["cells"])
                        if cell["id"] in catalog and catalog[cell["id"]].replacements)
    english_text = catalog[cell["id"]].replacements[0][0]
    cell["source"] = tr.source_of(cell).replace(english_text, "reworded")
    found = [str(p) for p in tr.problems(english, nb, catalog) if p.kind == "strings"]
    assert found == [f'notebooks/{english.name} cell {number} (id {cell["id"]}): the catalog replaces '
                     f'"{english_text}", which is no longer in the English cell']
    with pytest.raises(tr.ReplacementError, match=re.escape(english_text)):
        tr.build_notebook(nb, catalog)


def test_a_new_english_cell_is_reported_as_missing_and_an_entry_without_cell_as_orphan():
    english = tr.ENGLISH / "00_start_here.ipynb"
    nb, catalog = tr.read_json(english), tr.read_catalog(english)
    nb["cells"].append({"cell_type": "markdown", "id": "brand-new", "metadata": {}, "source": "New text."})
    removed = nb["cells"].pop(0)
    found = {(p.kind, p.cell_id) for p in tr.problems(english, nb, catalog)}
    assert {("missing", "brand-new"), ("orphan", removed["id"])} <= found
    assert "brand-new" not in {p.cell_id for p in tr.problems(english)}


# ---------------------------------------------------------------- the checkers' feedback


def test_every_checker_message_has_a_chinese_translation_and_no_other():
    extracted = {message.id for message in checker_messages.extracted() if message.id}
    missing = sorted(extracted - {english for english, chinese in MESSAGES.items() if chinese})
    assert not missing, ("add the Chinese of these checker messages to minigrad/exercises/locale/zh/LC_MESSAGES/"
                         "checkers.po (python -m tools.checker_messages adds them, empty):\n" + "\n".join(missing))
    stale = sorted(set(MESSAGES) - extracted)
    assert not stale, ("checkers.po translates messages no checker prints any more (reworded? run python -m "
                       "tools.checker_messages):\n" + "\n".join(map(repr, stale)))


def fields(text: str) -> list[str]:
    return sorted({field for _, field, _, _ in string.Formatter().parse(text) if field is not None})


@pytest.mark.parametrize("english", sorted(MESSAGES))
def test_a_chinese_message_keeps_the_english_placeholders(english):
    chinese_text = MESSAGES[english]
    assert fields(chinese_text) == fields(english), f"{chinese_text!r} has other placeholders than {english!r}"
    assert chinese_text == english or re.search(r"[\u4e00-\u9fff]", chinese_text), \
        f"{english!r} is not translated (a message that is only code maps to itself)"
    assert translate(english, "zh") == chinese_text   # what the checkers print, read from the .po


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


class Term(NamedTuple):
    english: str
    chinese: str
    first_use: str | None    # how each notebook writes the term the first time, e.g. "视图（view）"
    forbidden: list[str]


def glossary_rows() -> list[Term]:
    """The rows of GLOSSARY.md's table: | English | 中文 | 首次出现 | 不用的译法 |."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and line.startswith("|") and not set(cells[0]) <= set("-: ") and cells[0] != "English":
            forbidden = [word.strip() for word in cells[3].split("、") if word.strip() and word.strip() != "—"]
            rows.append(Term(cells[0], cells[1], None if cells[2] == "—" else cells[2], forbidden))
    return rows


def chinese_texts() -> list[tuple[str, str]]:
    texts = [(f"notebooks/zh/translations/{path.name}", path.read_text(encoding="utf-8"))
             for path in sorted(tr.CATALOGS.glob("*.md"))]
    texts += [("minigrad/exercises/locale/zh/LC_MESSAGES/checkers.po", text) for text in MESSAGES.values()]
    cheat_sheet = tr.CHINESE / "ctx_cheatsheet.md"
    texts.append(("notebooks/zh/ctx_cheatsheet.md", cheat_sheet.read_text(encoding="utf-8")))
    readme = tr.ROOT / "README.zh.md"
    if readme.exists():
        texts.append(("README.zh.md", readme.read_text(encoding="utf-8")))
    return texts


def test_the_glossary_names_the_course_terms():
    rows = glossary_rows()
    assert len(rows) > 60
    terms = {term.strip(): row.chinese for row in rows for term in row.english.split(",")}
    for english, zh in [("static method", "静态方法"), ("context", "上下文"), ("backward pass", "反向传播"),
                        ("leaf node", "叶子节点"), ("computational graph", "计算图"), ("gradient", "梯度"),
                        ("helper (function)", "辅助函数"), ("copy", "副本"), ("alias", "别名"), ("indices", "索引"),
                        ("non-differentiable", "不可求导"), ("reference cycle", "循环引用")]:
        assert zh in terms.get(english, ""), f"GLOSSARY.md: {english} should be {zh}"
    for row in rows:
        if row.first_use:
            term = row.first_use.split("（")[0]
            assert row.first_use == f"{term}（{row.first_use.split('（', 1)[1]}" and term in row.chinese, row


def test_glossary_terms_are_used_consistently():
    offences = [f"{where}: {word!r} (the glossary says {row.chinese} for {row.english})"
                for row in glossary_rows() for word in row.forbidden
                for where, text in chinese_texts() if word in text]
    assert not offences, "\n".join(offences)


@pytest.mark.parametrize("word, meant", [("不可微分", "不可求导"), ("不可微", "不可求导"), ("可微的", "可求导的"),
                                         ("帮手函数", "辅助函数"), ("拷贝", "副本"), ("下标", "索引"),
                                         ("引用循环", "循环引用"), ("引用环", "循环引用"),
                                         ("训练 200 轮（epoch）", "轮")])
def test_the_glossary_check_catches_every_variant_of_a_banned_term(word, meant):
    caught = [row for row in glossary_rows() for banned in row.forbidden if banned in f"这里写了{word}。"]
    assert caught and all(meant.replace("的", "") in row.chinese for row in caught), (word, caught)


# Words the glossary forbids where a regular expression tells the meant use from the others: (the
# pattern, a sample with exactly one offence, what to say instead).
MISNAMED = {
    "a reference cycle is just a ring": (r"(?<![自循])环(?!境)", "形成一个环；自环；循环引用；环境", "say 循环引用"),
    "detach is separating": (r"分离(?!式)", "不要分离 h；分离式写法", "say 对 ... 调用 detach() or 切断历史"),
}


def misnamed_words(pattern: str, text: str) -> list[str]:
    """Every match of ``pattern`` in ``text``, with eight characters either side."""
    return [text[max(0, m.start() - 8):m.end() + 8] for m in re.finditer(pattern, text)]


@pytest.mark.parametrize("pattern, sample, advice", list(MISNAMED.values()), ids=list(MISNAMED))
def test_a_misnamed_term_is_never_used(pattern, sample, advice):
    """A reference cycle is 循环引用, never just 环 (自环, 循环 and 环境 are other words); detach is
    切断历史 or 调用 detach(), and 分离 names only the separate style (分离式)."""
    assert len(misnamed_words(pattern, sample)) == 1
    offences = [f"{where}: …{found}…" for where, text in chinese_texts() for found in misnamed_words(pattern, text)]
    assert not offences, f"{advice} (GLOSSARY.md):\n" + "\n".join(offences)


HEADER_FIELD = re.compile(r"^\*\*(前置|要读的源码|时间)\*\*")   # the title cell's builds-on/opens/time fields


def markdown_body(english: Path) -> str:
    """A notebook's translated prose in cell order: its markdown without headings, table rules, the
    title cell's 前置/要读的源码/时间 paragraphs, and emphasis marks. Table rows count: a term first met
    in a table (00's course map) gets its English there."""
    catalog = tr.read_catalog(english)
    order = [cell["id"] for cell in tr.read_json(english)["cells"] if cell["cell_type"] == "markdown"]
    paragraphs = [paragraph for cell_id in order if cell_id in catalog
                  for paragraph in catalog[cell_id].text.split("\n\n") if not HEADER_FIELD.match(paragraph)]
    lines = [line for paragraph in paragraphs for line in paragraph.splitlines()
             if not line.lstrip().startswith("#") and not re.match(r"^\s*\|[-\s|]*\|?\s*$", line)]
    return "\n".join(lines).replace("*", "")


def first_use_offences(text: str, rows: list[Term]) -> list[str]:
    """The terms whose first use in ``text`` is not written as the glossary's 「中文（English）」.

    >>> rows = [Term("view", "视图", "视图（view）", []), Term("hook", "钩子", "钩子（hook）", [])]
    >>> first_use_offences("视图（view，共享数据）是……视图；钩子", rows)
    ['钩子 (first use: …，共享数据）是……视图；钩子…, should be 钩子（hook）)']
    """
    offences = []
    for row in rows:
        term = row.first_use.split("（")[0]
        masked = text
        for other in rows:   # 反向传播 inside 二阶反向传播 is the other term
            longer = other.first_use.split("（")[0]
            if term in longer and longer != term:
                masked = masked.replace(longer, "□" * len(longer))
        at = masked.find(term)
        english = row.first_use[:-1]   # "视图（view" may go on: "视图（view，共享数据的张量）"
        if at >= 0 and not (masked.startswith(english, at) and masked[at + len(english):][:1] in ("）", "，")):
            offences.append(f"{term} (first use: …{masked[max(0, at - 12):at + len(term) + 12].strip()}…, "
                            f"should be {row.first_use})")
    return offences


@pytest.mark.parametrize("name", NAMES)
def test_each_notebook_gives_a_terms_english_at_its_first_use(name):
    rows = [row for row in glossary_rows() if row.first_use]
    offences = first_use_offences(markdown_body(tr.ENGLISH / name), rows)
    assert not offences, (f"notebooks/zh/translations/{name.replace('.ipynb', '.md')}: write the glossary's "
                          "「中文（English）」 at the first use:\n" + "\n".join(offences))




def wide(character: str) -> bool:
    return unicodedata.east_asian_width(character) in ("W", "F")


def soft_breaks_between_wide_characters(text: str) -> list[str]:
    r"""Lines of markdown that end and continue with a Chinese character: the browser shows the line
    break as a space in the middle of the sentence (Chromium does), so a paragraph breaks its lines
    only next to a space-worthy neighbour (code, a Latin word, a number).

    >>> soft_breaks_between_wide_characters("第一行，\n第二行\n`code` 第三行\n```\n# 代码，\n# 注释\n```")
    ['第一行，⏎第二行']
    """
    found, fence, lines = [], False, text.split("\n")
    for line, following in zip(lines, lines[1:] + [""]):
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and line and following.strip() and wide(line[-1]) and wide(following.lstrip()[0]):
            found.append(f"{line[-12:]}⏎{following.lstrip()[:12]}")
    return found


def test_no_line_break_inside_a_chinese_sentence():
    texts = [(f"notebooks/zh/translations/{path.name} id {entry.cell_id}", entry.text)
             for path in sorted(tr.CATALOGS.glob("*.md"))
             for entry in tr.parse_catalog(path.read_text(encoding="utf-8")).values() if entry.kind == "markdown"]
    texts += [(str(path.relative_to(tr.ROOT)), path.read_text(encoding="utf-8"))
              for path in (tr.CHINESE / "ctx_cheatsheet.md", GLOSSARY, tr.ROOT / "README.zh.md")]
    offences = [f"{where}: {found}" for where, text in texts for found in soft_breaks_between_wide_characters(text)]
    assert not offences, "join these lines (the break shows as a space):\n" + "\n".join(offences)


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


def test_every_message_given_to_expect_is_marked_for_the_catalog():
    """A literal, an f-string or a sum of strings given to expect or NotYet would be printed in
    English only, and no test would miss it: each message is _("..."), _("...").format(...), N_()
    or a constant holding one."""
    unmarked = []
    for path in sorted((tr.ROOT / "minigrad" / "exercises").glob("nb[0-9][0-9].py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("expect", "NotYet"):
                for argument in node.args[1 if node.func.id == "expect" else 0:]:
                    if isinstance(argument, (ast.Constant, ast.JoinedStr, ast.BinOp)):
                        unmarked.append(f"minigrad/exercises/{path.name}:{argument.lineno}")
    assert not unmarked, "write these messages as _(\"...\"):\n" + "\n".join(unmarked)
