"""The Chinese edition, built from the English notebooks and per-cell translation catalogs.

The English notebooks (``notebooks/NN_name.ipynb``) are the one source of code and structure.
``notebooks/zh/translations/NN_name.md`` holds the Chinese text, one entry per English cell that
has text to translate, keyed by the cell's ``id`` and fingerprinted with a hash of the English
text it translates::

    <!-- 04/17 markdown id=cell-17 en=3f2a1b9c0d -->
    ## 上下文从哪里来
    ...

    <!-- 04/18 code id=cell-18 en=77d2e0a1b4 -->
    # 第一条注释的中文
    # 第二条注释的中文

A markdown entry is the whole Chinese cell. A code entry lists the Chinese comments, one line
each, in the order of the English cell's comments: the code itself always comes from the English
cell, so a code change reaches both editions. The set-up cell also gets ``set_language("zh")``,
so the exercise checkers answer in Chinese.

A code entry can also translate the course's own strings (printed labels, docstrings), one line
each, written ``"English" → "中文"``: the text between the quotes is source text inside a string
literal of the English cell, replaced wherever it occurs::

    <!-- 03/14 code id=cell-14 en=cad0884ede -->
    # next_functions，把每个节点换成它的名字
    "mul is y.grad_fn:" → "mul 就是 y.grad_fn："

A replacement may change only what a string says: the build stops when the English text it names
is no longer in the cell, or when the replaced cell's code (every name, operator, number and
f-string field, in order) differs from the English cell's. An entry for a code cell without
comments has ``en=da39a3ee5e`` (the hash of no text). Columns padded to a width (``{name:20}``)
count a Chinese character as one, so labels sharing a padded column keep equal numbers of Chinese
characters, or stay English.

``en=`` is the hash of the English markdown source (or of the code cell's comments). When the
English text changes, the hash no longer matches and ``status`` names the cell
("notebooks/04_where_ctx_comes_from.ipynb cell 17 (id cell-17) changed since it was translated");
tests/course/test_translations.py fails until the entry is updated and its ``en=`` set to the new hash.

Commands (standard library only; run from the repository root)::

    python -m tools.translate build            # write notebooks/zh/NN_name.ipynb from the catalogs
    python -m tools.translate status [--show]  # stale / missing translations (--show: English text)
    python -m tools.translate draft NN         # append skeletons for NN's missing entries
    python -m tools.translate messages         # the checkers' catalogs updated (tools.checker_messages)
    python -m tools.translate execute [NN ...] # re-run the Chinese notebooks in place (cwd notebooks/zh)

>>> comments("x = 1  # one\\ny = '# not a comment'\\n# two")
[(1, 7, '# one'), (3, 0, '# two')]
>>> with_comments("x = 1  # one\\n# two", ["# 一", "# 二"])
'x = 1  # 一\\n# 二'
>>> fingerprint("hello")
'aaf4c61ddc'
>>> replace_strings('print("x.grad is", x.grad)', [("x.grad is", "x.grad 是")])
'print("x.grad 是", x.grad)'
"""
from __future__ import annotations

import ast
import copy
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = ROOT / "notebooks"
CHINESE = ENGLISH / "zh"
CATALOGS = CHINESE / "translations"
NOTEBOOK_NAME = re.compile(r"^\d\d_.*\.ipynb$")
HEADER = re.compile(r"^<!-- (\d\d)/(\d+) (markdown|code) id=(\S+) en=(\S+) -->$", re.MULTILINE)
# The set-up cell imports the notebook's checker module; the Chinese edition switches its language.
CHECK_IMPORT = re.compile(r"^from minigrad\.exercises import nb\d\d as check\n", re.MULTILINE)
SET_LANGUAGE = ("from minigrad.exercises import set_language\n"
                "set_language(\"zh\")   # 练习检查器用中文给出反馈\n")


def fingerprint(text: str) -> str:
    """A short hash of the English text a translation was made from."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def comments(source: str) -> list[tuple[int, int, str]]:
    """The ``# comments`` of Python ``source`` as (line, column, text), line numbers from 1."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(token.start[0], token.start[1], token.string) for token in tokens
            if token.type == tokenize.COMMENT]


def with_comments(source: str, translated: list[str]) -> str:
    """``source`` with its comments replaced, in order, by ``translated`` (same count)."""
    found = comments(source)
    if len(found) != len(translated):
        raise ValueError(f"{len(found)} comments in the code, {len(translated)} translations")
    lines = source.split("\n")
    for (row, column, english), chinese in zip(found, translated):
        line = lines[row - 1]
        lines[row - 1] = line[:column] + chinese + line[column + len(english):]
    return "\n".join(lines)


REPLACEMENT = re.compile(r'^"(.*)" → "(.*)"$')


class ReplacementError(ValueError):
    """A string replacement that no longer fits its English cell."""


def _without_strings(node: ast.AST) -> ast.AST:
    """``node`` with every string constant emptied and the text parts of f-strings dropped; a
    field's format (``{name:20}``) is code and stays."""
    formats = {id(part) for child in ast.walk(node) if isinstance(child, ast.FormattedValue)
               and child.format_spec is not None for part in ast.walk(child.format_spec)}
    for child in ast.walk(node):
        if id(child) in formats:
            continue
        if isinstance(child, ast.JoinedStr):
            child.values = [part for part in child.values if not isinstance(part, ast.Constant)]
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            child.value = ""
    return node


def code_shape(source: str) -> str:
    """What must stay identical between the editions: the code without its comments and with the
    text of its strings left out (names, operators, numbers and f-string fields stay, in order).

    >>> code_shape('print(f"x is {x}")  # one') == code_shape('print(f"x 是 {x}")  # 一')
    True
    >>> code_shape('print(f"{a} {b}")') == code_shape('print(f"{b} {a}")')
    False
    >>> code_shape('print(f"{a:20}")') == code_shape('print(f"{a:10}")')
    False
    """
    return ast.dump(_without_strings(ast.parse(source)))


def replace_strings(source: str, replacements: list[tuple[str, str]]) -> str:
    """``source`` with each English string text replaced, wherever it occurs, by its translation.

    Raises :class:`ReplacementError` when an English text is not in ``source``, or when the result
    is other code than ``source`` (a replacement reaching outside a string literal).
    """
    result = source
    for english, chinese in replacements:
        if english not in result:
            raise ReplacementError(f'the catalog replaces "{english}", which is no longer in the English cell')
        result = result.replace(english, chinese)
    try:
        same = code_shape(result) == code_shape(source)
    except SyntaxError as error:
        raise ReplacementError(f"the string replacements make code that does not parse: {error}") from None
    if not same:
        raise ReplacementError("the string replacements change the code, not only what a string says")
    return result


def source_of(cell: dict) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def translatable_text(cell: dict) -> str | None:
    """What a translator translates in ``cell``: a markdown cell's source, a code cell's comments
    (one per line), or None when there is nothing to translate."""
    source = source_of(cell)
    if cell["cell_type"] == "markdown":
        return source if source.strip() else None
    if cell["cell_type"] == "code":
        found = comments(source)
        return "\n".join(text for _, _, text in found) if found else None
    return None


@dataclass
class Entry:
    """One translated cell in a catalog."""

    number: int
    kind: str
    cell_id: str
    english_hash: str
    text: str

    @property
    def replacements(self) -> list[tuple[str, str]]:
        """A code entry's string replacements, (English, Chinese) source text."""
        if self.kind != "code":
            return []
        return [match.groups() for match in map(REPLACEMENT.match, self.text.split("\n")) if match]

    @property
    def comment_lines(self) -> list[str]:
        """A code entry's translated comments, in order (every line that is not a replacement)."""
        return [line for line in self.text.split("\n") if line and not REPLACEMENT.match(line)]

    def header(self, notebook_number: str) -> str:
        return (f"<!-- {notebook_number}/{self.number:02d} {self.kind} id={self.cell_id} "
                f"en={self.english_hash} -->")


def parse_catalog(text: str) -> dict[str, Entry]:
    """The entries of a catalog file, by cell id."""
    entries: dict[str, Entry] = {}
    headers = list(HEADER.finditer(text))
    for header, following in zip(headers, headers[1:] + [None]):
        end = following.start() if following else len(text)
        body = text[header.end():end].strip("\n")
        cell_id = header.group(4)
        if cell_id in entries:
            raise ValueError(f"two catalog entries for cell id {cell_id}")
        entries[cell_id] = Entry(int(header.group(2)), header.group(3), cell_id, header.group(5), body)
    return entries


def english_paths() -> list[Path]:
    return sorted(path for path in ENGLISH.iterdir() if NOTEBOOK_NAME.match(path.name))


def catalog_path(english: Path) -> Path:
    return CATALOGS / (english.stem + ".md")


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def read_catalog(english: Path) -> dict[str, Entry]:
    path = catalog_path(english)
    return parse_catalog(path.read_text(encoding="utf-8")) if path.exists() else {}


@dataclass
class Problem:
    """A cell whose translation is missing or older than its English text."""

    path: Path
    number: int
    cell_id: str
    kind: str   # "missing", "untranslated", "changed", "orphan" or "strings"
    english: str = ""
    current_hash: str = ""
    detail: str = ""   # for "strings": what is wrong with the string replacements

    def __str__(self) -> str:
        where = f"notebooks/{self.path.name} cell {self.number} (id {self.cell_id})"
        return {"missing": f"{where} has no translation",
                "untranslated": f"{where} still has the English text in its catalog entry",
                "changed": f"{where} changed since it was translated",
                "orphan": f"notebooks/zh/translations/{self.path.stem}.md has an entry for id "
                          f"{self.cell_id}, which is no cell of notebooks/{self.path.name}",
                "strings": f"{where}: {self.detail}"}[self.kind]


def problems(english: Path, nb: dict | None = None, catalog: dict[str, Entry] | None = None) -> list[Problem]:
    """Missing, changed and orphan translations of one English notebook."""
    nb = read_json(english) if nb is None else nb
    catalog = read_catalog(english) if catalog is None else catalog
    found, ids = [], set()
    for number, cell in enumerate(nb["cells"]):
        ids.add(cell["id"])
        entry = catalog.get(cell["id"])
        if entry is not None and entry.replacements and cell["cell_type"] == "code":
            try:
                replace_strings(source_of(cell), entry.replacements)
            except ReplacementError as error:
                found.append(Problem(english, number, cell["id"], "strings", detail=str(error)))
        text = translatable_text(cell)
        if text is None:
            continue
        translated = "\n".join(entry.comment_lines) if entry and entry.kind == "code" else entry and entry.text
        if entry is None:
            found.append(Problem(english, number, cell["id"], "missing", text, fingerprint(text)))
        elif entry.english_hash != fingerprint(text):
            found.append(Problem(english, number, cell["id"], "changed", text, fingerprint(text)))
        elif translated == text and re.search(r"\b[A-Za-z]{2,} [a-z]{2,}\b", text):   # English words left
            found.append(Problem(english, number, cell["id"], "untranslated", text, fingerprint(text)))
    found += [Problem(english, entry.number, cell_id, "orphan") for cell_id, entry in catalog.items()
              if cell_id not in ids]
    return found


def chinese_source(cell: dict, entry: Entry | None) -> str:
    """The Chinese cell's source: the translation (markdown) or the code with translated comments
    and strings.

    A stale entry's comments are still used while they fit (same number of comments); a missing
    entry leaves the English text, which ``status`` and the tests report. A string replacement that
    no longer fits raises :class:`ReplacementError`, naming the cell.
    """
    source = source_of(cell)
    if cell["cell_type"] == "markdown":
        return entry.text if entry else source
    if cell["cell_type"] != "code":
        return source
    if entry and entry.text:
        if entry.replacements:
            try:
                source = replace_strings(source, entry.replacements)
            except ReplacementError as error:
                raise ReplacementError(f"cell id {cell['id']}: {error}") from None
        translated = entry.comment_lines
        if translated and len(translated) == len(comments(source)):
            source = with_comments(source, translated)
    if CHECK_IMPORT.search(source):
        match = CHECK_IMPORT.search(source)
        source = source[:match.end()] + SET_LANGUAGE + source[match.end():]
    return source


def build_notebook(english_nb: dict, catalog: dict[str, Entry], previous: dict | None = None) -> dict:
    """The Chinese notebook: the English one with translated text. Outputs are kept from
    ``previous`` (the committed Chinese notebook) for cells whose source did not change, and
    taken from the English cell otherwise (re-execute to refresh them)."""
    old = {cell.get("id"): cell for cell in (previous or {}).get("cells", [])}
    nb = copy.deepcopy(english_nb)
    for cell in nb["cells"]:
        source = chinese_source(cell, catalog.get(cell["id"]))
        before = old.get(cell["id"])
        if cell["cell_type"] == "code" and before is not None and source_of(before) == source:
            cell["outputs"] = before.get("outputs", [])
            cell["execution_count"] = before.get("execution_count")
        cell["source"] = source.splitlines(keepends=True)
    return nb


def build_all() -> list[Path]:
    """Write every Chinese notebook from its English notebook and catalog."""
    written = []
    CHINESE.mkdir(exist_ok=True)
    for english in english_paths():
        target = CHINESE / english.name
        previous = read_json(target) if target.exists() else None
        try:
            nb = build_notebook(read_json(english), read_catalog(english), previous)
        except ReplacementError as error:
            raise ReplacementError(f"notebooks/{english.name} {error} "
                                   f"(fix notebooks/zh/translations/{english.stem}.md)") from None
        target.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        written.append(target)
    return written


def draft(number: str) -> Path:
    """Append skeleton entries for the missing cells of notebook ``number``: the English text, to
    be replaced by its translation (``status`` reports an entry still equal to the English text).
    Changed entries are listed with their new English text by ``status --show``."""
    english = next(path for path in english_paths() if path.name.startswith(number))
    path = catalog_path(english)
    path.parent.mkdir(parents=True, exist_ok=True)
    kinds = {cell["id"]: cell["cell_type"] for cell in read_json(english)["cells"]}
    blocks = [Entry(p.number, kinds[p.cell_id], p.cell_id, p.current_hash, p.english).header(number)
              + "\n" + p.english + "\n" for p in problems(english) if p.kind == "missing"]
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(existing + "\n".join(blocks), encoding="utf-8")
    return path


def execute(numbers: list[str]) -> int:
    """Re-run Chinese notebooks in place, as ``make execute`` does for the English ones (same
    seed and options), from ``notebooks/zh`` so that relative paths resolve the same way."""
    paths = [path for path in sorted(CHINESE.glob("[0-9][0-9]_*.ipynb"))
             if not numbers or path.name[:2] in numbers]
    env = dict(os.environ, PYTHONHASHSEED="0", PYDEVD_DISABLE_FILE_VALIDATION="1")
    failed = 0
    for path in paths:
        print(f"executing notebooks/zh/{path.name}", flush=True)
        failed += subprocess.call(
            [sys.executable, "-m", "jupyter", "nbconvert", "--log-level=WARN", "--to", "notebook",
             "--execute", "--inplace", "--ExecutePreprocessor.kernel_name=python3",
             "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.record_timing=False",
             path.name], cwd=CHINESE, env=env) != 0
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "status"
    if command == "build":
        try:
            written = build_all()
        except ReplacementError as error:
            print(f"build stopped: {error}", file=sys.stderr)
            return 1
        for path in written:
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    if command == "status":
        found = [problem for english in english_paths() for problem in problems(english)]
        for problem in found:
            print(problem)
            if "--show" in argv and problem.kind in ("changed", "missing"):
                print(f"  current English (en={problem.current_hash}):")
                print("    " + problem.english.replace("\n", "\n    "))
        print(f"{len(found)} translation(s) missing or out of date" if found else "all translations up to date")
        return 1 if found else 0
    if command == "messages":
        from tools import checker_messages
        return checker_messages.main([])
    if command == "execute":
        return execute(argv[1:])
    if command == "draft" and len(argv) == 2:
        print(f"appended missing entries to {draft(argv[1]).relative_to(ROOT)}")
        return 0
    print(__doc__.split("Commands")[1].split(">>>")[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
