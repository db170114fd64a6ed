"""The course's set-up files agree with each other.

pyproject.toml is the source of truth; environment.yml (for conda users), the
README, the Makefile and the nbval sanitize file must stay in step with it.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"

# pip name -> conda-forge name, where they differ.
CONDA_NAME = {"graphviz": "python-graphviz"}


def requirement_name(spec: str) -> str:
    """'numpy>=1.23' -> 'numpy' (normalised as pip does: lower case, '_' and '.' as '-')."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    assert match, f"cannot read a package name in {spec!r}"
    return re.sub(r"[._-]+", "-", match.group(1)).lower()


def read_environment(text: str) -> tuple[list[str], list[str]]:
    """The conda specs and pip specs listed under ``dependencies:`` in an environment.yml.

    A tiny line parser (PyYAML may not be installed): it understands a
    ``dependencies:`` list of ``- spec`` items, one of which may be ``- pip:``
    followed by a more indented list.

    >>> read_environment("name: x\\ndependencies:\\n  - numpy>=1  # c\\n  - pip:\\n      - -e .\\n")
    (['numpy>=1'], ['-e .'])
    """
    conda: list[str] = []
    pip: list[str] = []
    in_dependencies = False
    top_indent = None
    in_pip = False
    for raw in text.splitlines():
        line = re.sub(r"(^|\s)#.*", "", raw).rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0 and not line.startswith("-"):
            in_dependencies = line.startswith("dependencies:")
            continue
        if not in_dependencies:
            continue
        item = line.strip()
        assert item.startswith("- "), f"not a list item under dependencies: {raw!r}"
        item = item[2:].strip()
        if top_indent is None:
            top_indent = indent
        if indent > top_indent:
            assert in_pip, f"nested item outside `- pip:`: {raw!r}"
            pip.append(item)
        elif item == "pip:":
            in_pip = True
        else:
            conda.append(item)
            in_pip = False
    return conda, pip


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def environment() -> tuple[list[str], list[str]]:
    return read_environment((ROOT / "environment.yml").read_text(encoding="utf-8"))


def test_pyproject_names_the_package_and_its_dependencies(pyproject):
    project = pyproject["project"]
    assert project["name"] == "minigrad-course"
    assert project["requires-python"] == ">=3.10"
    assert [requirement_name(d) for d in project["dependencies"]] == ["numpy"]
    extras = project["optional-dependencies"]
    assert sorted(map(requirement_name, extras["course"])) == ["babel", "graphviz", "jupyterlab", "matplotlib", "nbdime"]
    assert sorted(map(requirement_name, extras["test"])) == ["hypothesis", "nbval", "pytest"]
    assert pyproject["tool"]["setuptools"]["packages"]["find"]["include"] == ["minigrad*"]
    pytest_config = pyproject["tool"]["pytest"]["ini_options"]
    assert pytest_config["testpaths"] == ["tests"]
    assert any(marker.startswith("slow:") for marker in pytest_config["markers"])


def test_every_folder_of_python_files_in_minigrad_is_a_package():
    # setuptools' find() skips a folder without __init__.py, and so would a wheel.
    folders = {path.parent for path in (ROOT / "minigrad").rglob("*.py") if "__pycache__" not in path.parts}
    missing = sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").exists())
    assert not missing, f"add an __init__.py to: {missing}"


def test_environment_yml_has_every_pyproject_dependency(pyproject, environment):
    conda, _ = environment
    conda_names = {requirement_name(spec) for spec in conda}
    project = pyproject["project"]
    wanted = project["dependencies"] + [
        spec for extra in ("course", "test") for spec in project["optional-dependencies"][extra]
    ]
    missing = []
    for spec in wanted:
        name = CONDA_NAME.get(requirement_name(spec), requirement_name(spec))
        if name not in conda_names:
            missing.append(name)
    assert not missing, f"environment.yml lacks {missing}"


def test_environment_yml_lists_nothing_pyproject_does_not(pyproject, environment):
    conda, _ = environment
    project = pyproject["project"]
    pip_names = {
        requirement_name(spec)
        for spec in project["dependencies"] + sum(project["optional-dependencies"].values(), [])
    }
    known = {CONDA_NAME.get(name, name) for name in pip_names} | {"python", "pip", "graphviz"}
    extra = sorted({requirement_name(spec) for spec in conda} - known)
    assert not extra, f"environment.yml has {extra}, which pyproject.toml does not ask for"


def test_environment_yml_has_python_dot_and_the_course_itself(environment):
    conda, pip = environment
    assert "python>=3.10" in [spec.replace(" ", "") for spec in conda]
    assert "graphviz" in {requirement_name(spec) for spec in conda}, "conda's graphviz gives the dot program"
    assert "pip" in conda, "conda needs pip to read the `- pip:` list"
    assert "-e ." in pip


def test_tiny_yaml_parser_agrees_with_pyyaml():
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    conda = [item for item in data["dependencies"] if isinstance(item, str)]
    pip = [spec for item in data["dependencies"] if isinstance(item, dict) for spec in item["pip"]]
    assert read_environment((ROOT / "environment.yml").read_text(encoding="utf-8")) == (conda, pip)


def readme_section(title: str) -> str:
    """The text of the README section headed ``## title`` (up to the next ``## ``)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def test_readme_quick_start_shows_make_lab_and_make_test():
    quick_start = readme_section("Quick start")
    assert "make lab" in quick_start
    assert "make test" in quick_start


def course_map_rows() -> dict[str, bool]:
    """Notebook name -> whether its course-map row is marked *(planned)* (not written yet)."""
    rows = {}
    for line in readme_section("Course map").splitlines():
        for name in re.findall(r"\b(\d{2}_[A-Za-z0-9_]+)", line if line.startswith("|") else ""):
            rows[name] = "(planned)" in line
    return rows


def test_readme_course_map_matches_the_notebooks():
    rows = course_map_rows()
    assert rows, "the README's course map names no notebook"
    present = {path.stem for path in (ROOT / "notebooks").glob("*.ipynb")}
    if not present:
        pytest.skip("notebooks/ holds no notebook yet")
    missing = sorted(name for name, planned in rows.items() if not planned and name not in present)
    assert not missing, f"named in the README's course map but missing from notebooks/: {missing}"
    unlisted = sorted(present - set(rows))
    assert not unlisted, f"in notebooks/ but not in the README's course map: {unlisted}"


def sanitize_rules(text: str) -> list[tuple[str, str]]:
    """Read a sanitize file strictly: comments, blank lines and regex:/replace: pairs only."""
    lines = text.split("\n")
    rules = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            i += 1
            continue
        assert line.startswith("regex: "), f"line {i + 1}: expected 'regex: ...', got {line!r}"
        assert i + 1 < len(lines) and lines[i + 1].startswith("replace: "), (
            f"line {i + 2}: a 'regex: ' line must be followed at once by 'replace: ...'"
        )
        rules.append((line[len("regex: "):], lines[i + 1][len("replace: "):]))
        i += 2
    return rules


def test_sanitize_file_is_well_formed():
    raw = SANITIZE.read_bytes()
    assert b"\r" not in raw, "use LF line endings: nbval ignores rules otherwise"
    rules = sanitize_rules(raw.decode())
    assert rules
    for regex, replace in rules:
        pattern = re.compile(regex)
        pattern.sub(replace, "")  # raises on a bad replacement template such as '\d'
        assert not pattern.match(""), f"{regex!r} matches the empty string"


def test_nbval_reads_the_same_rules():
    plugin = pytest.importorskip("nbval.plugin")
    text = SANITIZE.read_text(encoding="utf-8")
    assert plugin.get_sanitize_patterns(text) == sanitize_rules(text)


@pytest.mark.parametrize(
    "before, after",
    [
        ("<graphviz.graphs.Digraph at 0x7f3a2c1d5e50>", "<graphviz.graphs.Digraph at 0xADDRESS>"),
        ("/tmp/ipykernel_4242/1234567.py:3: UserWarning: careful", "<cell>:3: UserWarning: careful"),
        ("tensor([1., 2.])", "tensor([1., 2.])"),
    ],
)
def test_sanitize_rules_rewrite_machine_specific_text(before, after):
    text = before
    for regex, replace in sanitize_rules(SANITIZE.read_text(encoding="utf-8")):
        text = re.sub(regex, replace, text)
    assert text == after


def test_make_test_uses_the_sanitize_file():
    from tools.check import PHASES

    notebooks = PHASES[-1][2]
    assert notebooks[notebooks.index("--nbval-sanitize-with") + 1] == "tests/nbval_sanitize.cfg"


# --- Binder: the course launches on mybinder.org without installing anything --------------------

BINDER = ROOT / "binder"


def test_binder_installs_what_pyproject_asks_for(pyproject):
    lines = [line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()]
    specs = [line for line in lines if line and not line.startswith("#")]
    project = pyproject["project"]
    assert sorted(specs) == sorted(project["dependencies"] + project["optional-dependencies"]["course"])


def test_binder_has_graphviz_python_and_the_package():
    assert "graphviz" in (BINDER / "apt.txt").read_text().split(), "apt.txt gives the dot program"
    runtime = (BINDER / "runtime.txt").read_text().strip()
    stored = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert re.fullmatch(r"python-3\.\d+", runtime) and int(runtime.split(".")[1]) >= int(stored.split(".")[1])
    for script in ("postBuild", "start"):
        path = BINDER / script
        assert path.read_text().startswith("#!/bin/bash\n") and os.access(path, os.X_OK), script
    assert re.search(r"^python -m pip install --no-deps -e \.$", (BINDER / "postBuild").read_text(), re.M)
    start = (BINDER / "start").read_text()
    assert 'JUPYTER_CONFIG_PATH="$PWD/jupyter-config' in start and start.rstrip().endswith('exec "$@"')
    assert (ROOT / "jupyter-config" / "jupyter_server_config.py").exists()


def test_readme_has_the_binder_launch_link():
    from tools.site import binder_url

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert binder_url("OWNER/REPO") in text
    assert "OWNER/REPO" in readme_section("Launch without installing")


# --- pinned versions: constraints.txt (make lock) -------------------------------------------------

def pins(path: Path) -> dict[str, list[str]]:
    """Package -> its pinned versions (one per Python-version marker) in a constraints file."""
    found: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.split(";")[0].strip().partition("==")
            assert version, f"{path.name}: {line!r} pins no version"
            found.setdefault(requirement_name(name), []).append(version)
    return found


def test_every_dependency_is_pinned_for_every_install(pyproject):
    project = pyproject["project"]
    extras = project["optional-dependencies"]
    for path, wanted in ((ROOT / "constraints.txt", project["dependencies"] + extras["course"] + extras["test"]),
                         (ROOT / "constraints-classroom.txt", sum(extras.values(), project["dependencies"]))):
        pinned = pins(path)
        missing = sorted({requirement_name(spec) for spec in wanted} - set(pinned))
        assert not missing, f"{path.name} pins no version of {missing}: run `make lock`"
    assert "torch" not in pins(ROOT / "constraints.txt"), "TORCH_VERSION picks torch itself"
    assert not [name for name in pins(ROOT / "constraints.txt") if name.startswith("nvidia-")]


def test_every_make_target_that_installs_uses_the_pins():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    venv = (ROOT / "tools" / "venv.sh").read_text(encoding="utf-8")
    assert re.search(r'pip install [^\n]*"\$\{pins\[@\]\}" -e', venv) and 'pins=(-c "$CONSTRAINTS")' in venv
    fidelity = makefile[makefile.index("$(FIDELITY_STAMP):"):makefile.index("execute:")]
    assert fidelity.count("-c $(CONSTRAINTS)") == 2, "torch and minigrad, in .venv-fidelity"
    assert re.search(r"^lock: .*## refresh the pinned versions", makefile, re.M)
