"""What a learner sees, checked in a real browser (headless Chromium).

1. A stored notebook opened in JupyterLab, before anything is run: the backward-graph picture
   stored in the notebook is rendered in an output area (checked in the page's DOM) and painted
   on screen (its exact pixels are found in a screenshot).
2. The same for the notebook's page of the HTML site (``make site``).

Screenshots, and close-ups of the graph in them (``*_graph.png``), are kept in
``build/screenshots/`` for a person to look at. Without a ``chromium``
program the tests are skipped, unless MINIGRAD_REQUIRE_BROWSER=1 (``make test`` sets it where it
installs Chromium itself: as root with apt-get), in which case they fail.
"""
from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools import lab, notebook_metadata, site  # noqa: E402
from tools.course import editions, notebook_paths, read_notebook  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
SCREENSHOTS = ROOT / "build" / "screenshots"
# Chromium as root in a container, with no background traffic to Google's servers.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--virtual-time-budget=20000"]
PREFERRED_NOTEBOOK = "00_start_here.ipynb"
VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                 "source", "track", "wbr"}

Image = pytest.importorskip("PIL.Image", reason="Pillow (installed with matplotlib) reads screenshots")


# --- finding Chromium and the picture to look for -------------------------------------------

@pytest.fixture(scope="module")
def chromium() -> str:
    """The Chromium program, or a skip (a failure when MINIGRAD_REQUIRE_BROWSER=1)."""
    program = os.environ.get("CHROMIUM") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if program:
        return program
    reason = ("no Chromium: install Debian's chromium package (`make chromium` as root, or "
              "`sudo apt-get install chromium`), or set CHROMIUM=/path/to/chrome")
    if os.environ.get("MINIGRAD_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def stored_graph(path: Path) -> tuple[str, str]:
    """The first stored backward-graph picture of a notebook (base64 PNG) and the heading above it."""
    nb = read_notebook(path)
    heading = ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found = re.match(r"#+\s+(.*)", cell.source.strip())
            heading = found.group(1) if found else heading
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data and data.get("text/plain", "").startswith("Backward graph"):
                return "".join(data["image/png"].split()), heading
    return "", ""


@pytest.fixture(scope="module")
def notebook() -> Path:
    """The notebook the tests open: 00_start_here, or else the first with a stored graph."""
    candidates = sorted(notebook_paths(NOTEBOOKS), key=lambda path: path.name != PREFERRED_NOTEBOOK)
    for path in candidates:
        if stored_graph(path)[0]:
            return path
    pytest.fail("no notebook in notebooks/ stores a backward-graph picture (viz.draw output)")


def anchor(heading: str) -> str:
    """The id JupyterLab and nbconvert give a markdown heading: "A first graph" -> "A-first-graph"."""
    return re.sub(r"[`*_]", "", heading).strip().replace(" ", "-")


# --- running Chromium -----------------------------------------------------------------------

def run_chromium(program: str, url: str, profile: Path, *mode: str) -> str:
    """Run headless Chromium once on ``url`` (with a fresh profile) and return its stdout."""
    if profile.exists():
        shutil.rmtree(profile)
    command = [program, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *mode, url]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stderr[-2000:]}"
    return result.stdout


def screenshot(program: str, url: str, profile: Path, name: str, size: str) -> Path:
    """Save a screenshot of ``url`` as build/screenshots/NAME and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    out = SCREENSHOTS / name
    out.unlink(missing_ok=True)
    run_chromium(program, url, profile, f"--window-size={size}", f"--screenshot={out}")
    assert out.exists(), f"Chromium wrote no screenshot of {url}"
    return out


class ImageFinder(HTMLParser):
    """Collects every <img src> of a page with the classes of the elements around it."""

    def __init__(self) -> None:
        super().__init__()
        self.open_classes: list[set[str]] = []
        self.images: list[tuple[str, set[str]]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "img":
            around = set().union(*self.open_classes) if self.open_classes else set()
            self.images.append(("".join((attributes.get("src") or "").split()), around))
        if tag not in VOID_ELEMENTS:
            self.open_classes.append(set((attributes.get("class") or "").split()))

    def handle_endtag(self, tag):
        if tag not in VOID_ELEMENTS and self.open_classes:
            self.open_classes.pop()


def images_in(dom: str) -> list[tuple[str, set[str]]]:
    finder = ImageFinder()
    finder.feed(dom)
    return finder.images


def flatten(picture):
    """An RGB copy of a picture, with any transparency laid over white (as on the page)."""
    picture = picture.convert("RGBA")
    white = Image.new("RGBA", picture.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, picture).convert("RGB")


def find_picture(screen_path: Path, png_base64: str) -> tuple[int, int] | None:
    """Where the picture's exact pixels appear in the screenshot (left, top), or None.

    Searches for the picture's most varied row of pixels in every row of the screenshot, then
    compares the whole picture at each hit: a match means it was painted, unscaled and uncovered.
    """
    picture = flatten(Image.open(io.BytesIO(base64.b64decode(png_base64))))
    screen = Image.open(screen_path).convert("RGB")
    width, height = picture.size
    pixels = picture.tobytes()
    rows = [pixels[y * 3 * width:(y + 1) * 3 * width] for y in range(height)]
    key_row = max(range(height), key=lambda y: len({rows[y][i:i + 3] for i in range(0, 3 * width, 3)}))
    screen_width, screen_height = screen.size
    screen_pixels, stride = screen.tobytes(), 3 * screen_width
    for y in range(key_row, screen_height - (height - key_row) + 1):
        row = screen_pixels[y * stride:(y + 1) * stride]
        x = row.find(rows[key_row])
        while x != -1:
            if x % 3 == 0:
                left, top = x // 3, y - key_row
                if screen.crop((left, top, left + width, top + height)).tobytes() == pixels:
                    return left, top
            x = row.find(rows[key_row], x + 1)
    return None


def save_close_up(shot: Path, where: tuple[int, int], png_base64: str, margin: int = 120) -> Path:
    """Save the part of a screenshot around the picture found there as NAME_graph.png."""
    width, height = Image.open(io.BytesIO(base64.b64decode(png_base64))).size
    left, top = where
    screen = Image.open(shot)
    box = (max(left - margin, 0), max(top - margin, 0),
           min(left + width + margin, screen.width), min(top + height + margin, screen.height))
    out = shot.with_name(f"{shot.stem}_graph.png")
    screen.crop(box).save(out)
    return out


def assert_not_blank(path: Path) -> None:
    grey = Image.open(path).convert("L")
    darkest, lightest = grey.getextrema()
    assert lightest - darkest > 100, f"{path} is blank (one colour)"


# --- JupyterLab on loopback -----------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def processes_mentioning(text: str) -> list[int]:
    """Process ids whose command line contains ``text`` (kernels started by our server)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if text.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def stop_group(process: subprocess.Popen) -> None:
    """Stop a process started in its own session, and its children (SIGTERM, then SIGKILL)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def stop(server: subprocess.Popen, runtime_dir: Path) -> None:
    """Stop JupyterLab (it shuts its kernels down), then anything of ours that is left."""
    stop_group(server)
    for pid in processes_mentioning(str(runtime_dir)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextlib.contextmanager
def course_lab(home: Path, root_dir: Path, config: Path = lab.CONFIG, settings: dict | None = None):
    """JupyterLab started as ``make lab`` starts it (tools/lab.py, the course's jupyter-config/),
    serving ``root_dir`` on 127.0.0.1 without a token, with its own Jupyter folders under
    ``home``; ``settings`` are user settings (plugin id -> values). Yields the base URL."""
    settings_dir = home / "settings"
    for plugin, values in (settings or {}).items():
        package, _, name = plugin.partition(":")
        (settings_dir / package).mkdir(parents=True, exist_ok=True)
        (settings_dir / package / f"{name}.jupyterlab-settings").write_text(json.dumps(values))
    runtime_dir = home / "runtime"
    env = lab.lab_environment(dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"),
                                   JUPYTER_RUNTIME_DIR=str(runtime_dir),
                                   JUPYTERLAB_SETTINGS_DIR=str(settings_dir),
                                   JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces")), config)
    port = free_port()
    command = lab.lab_command(root_dir, port, ["--no-browser", "--ip=127.0.0.1", "--IdentityProvider.token="])
    log_path = home / "jupyterlab.log"
    log = open(log_path, "w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                              cwd=config.parent)   # from the checkout's root, as `make lab` runs
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, f"JupyterLab stopped:\n{log_path.read_text()[-3000:]}"
            try:
                with urllib.request.urlopen(f"{base_url}/api/status", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not answer within 60 s"
                time.sleep(0.3)
        yield base_url
    finally:
        stop(server, runtime_dir)
        log.close()
    assert not processes_mentioning(str(runtime_dir)), "a kernel of the test JupyterLab is still running"


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory, chromium):
    """The course's JupyterLab serving a copy of notebooks/; yields its base URL."""
    home = tmp_path_factory.mktemp("jupyterlab")
    root_dir = home / "notebooks"
    shutil.copytree(NOTEBOOKS, root_dir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    with course_lab(home, root_dir) as base_url:
        yield base_url


# --- the tests ------------------------------------------------------------------------------

def test_jupyterlab_shows_the_stored_graph_before_anything_runs(chromium, jupyterlab, notebook, tmp_path):
    graph, heading = stored_graph(notebook)
    # JupyterLab scrolls an opened notebook to the heading named in the URL's fragment.
    url = f"{jupyterlab}/lab/tree/{notebook.name}#{anchor(heading)}"

    dom = run_chromium(chromium, url, tmp_path / "profile", "--window-size=1400,2400", "--dump-dom")
    rendered = [classes for src, classes in images_in(dom) if src == f"data:image/png;base64,{graph}"]
    assert rendered, f"the stored graph of {notebook.name} is not in JupyterLab's page"
    assert any("jp-OutputArea-output" in classes for classes in rendered), \
        "the graph is in the page but not inside a notebook output area"

    # A tall window: JupyterLab scrolls to the heading before every cell above it has its final
    # height, so on a slow machine the heading can land near the bottom of a shorter window.
    shot = screenshot(chromium, url, tmp_path / "profile", f"jupyterlab_{notebook.stem}.png", "1400,4000")
    assert_not_blank(shot)
    found = find_picture(shot, graph)
    assert found is not None, f"the stored graph under '{heading}' is not visible in {shot.relative_to(ROOT)}"
    save_close_up(shot, found, graph)


def test_site_page_shows_the_graph_without_scripts_or_network(chromium, notebook, tmp_path):
    graph, heading = stored_graph(notebook)
    (tmp_path / "notebooks").mkdir()
    shutil.copy(notebook, tmp_path / "notebooks")
    pages = site.build(tmp_path / "notebooks", tmp_path / "site")
    page = next(path for path in pages if path.stem == notebook.stem)
    url = page.as_uri()

    dom = run_chromium(chromium, url, tmp_path / "profile", "--window-size=1200,6000", "--dump-dom")
    rendered = [classes for src, classes in images_in(dom) if src == f"data:image/png;base64,{graph}"]
    assert rendered and any("jp-OutputArea-output" in classes for classes in rendered), \
        f"the stored graph of {notebook.name} is not in an output area of {page.name}"

    # A tall window instead of scrolling: headless Chromium paints a scrolled-to anchor blank.
    shot = screenshot(chromium, url, tmp_path / "profile", f"site_{notebook.stem}.png", "1200,6000")
    assert_not_blank(shot)
    found = find_picture(shot, graph)
    assert found is not None, f"the graph under '{heading}' is not visible in {shot.relative_to(ROOT)}"
    save_close_up(shot, found, graph)


def test_course_server_shows_no_jupyter_news_pop_up(chromium, jupyterlab, notebook, tmp_path):
    # The course's jupyter-config/ disables JupyterLab's announcements plugin, which otherwise asks
    # "Would you like to get notified about official Jupyter news?" in a toast over the notebook.
    with urllib.request.urlopen(f"{jupyterlab}/lab") as page:
        assert "@jupyterlab/apputils-extension:announcements" in page.read().decode()
    dom = run_chromium(chromium, f"{jupyterlab}/lab/tree/{notebook.name}", tmp_path / "profile",
                       "--window-size=1400,900", "--dump-dom")
    assert "jp-Notebook" in dom, "the notebook did not open"
    assert not re.search(r"Jupyter news|notified about", dom, re.IGNORECASE), "the news pop-up is shown"


# --- opening a notebook changes nothing -----------------------------------------------------

COURSE_FILES = ("notebooks", "tools", "jupyter-config", ".gitignore")
OTHER_PYTHON = "0.0.1"   # a Python version no kernel reports


def course_copy(target: Path) -> Path:
    """A git repository with a copy of the course's notebooks and server configuration, whose
    stored notebook metadata names Python OTHER_PYTHON, as on a learner's machine whose Python is
    not the one the notebooks were stored with."""
    for name in COURSE_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns(
                ".ipynb_checkpoints", "__pycache__"))
        else:
            shutil.copy(source, target / name)
    module = target / "tools" / "notebook_metadata.py"
    stored = f'"version": "{notebook_metadata.LANGUAGE_INFO["version"]}"'
    assert stored in module.read_text()
    module.write_text(module.read_text().replace(stored, f'"version": "{OTHER_PYTHON}"'))
    subprocess.run([sys.executable, "-m", "tools.notebook_metadata", "notebooks"], cwd=target, check=True,
                   capture_output=True)
    for command in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.name=test", "-c", "user.email=test@example.org", "commit", "-qm", "copy"]):
        subprocess.run(command, cwd=target, check=True, capture_output=True)
    return target


@contextlib.contextmanager
def chromium_tabs(program: str, profile: Path):
    """Headless Chromium with its DevTools HTTP endpoint; yields (open_tab, close_tab, port)."""
    port = free_port()
    command = [program, *CHROMIUM_FLAGS[:-1], f"--user-data-dir={profile}",
               f"--remote-debugging-port={port}", "about:blank"]
    browser = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    endpoint = f"http://127.0.0.1:{port}/json"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{endpoint}/version", timeout=2).close()
                break
            except OSError:
                assert browser.poll() is None and time.monotonic() < deadline, "Chromium did not start"
                time.sleep(0.3)

        def open_tab(url: str) -> str:
            request = urllib.request.Request(f"{endpoint}/new?{url}", method="PUT")
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.load(answer)["id"]

        def close_tab(tab: str) -> None:
            urllib.request.urlopen(f"{endpoint}/close/{tab}", timeout=10).close()

        yield open_tab, close_tab, port
    finally:
        stop_group(browser)


def test_opening_every_notebook_in_jupyterlab_changes_nothing(chromium, tmp_path):
    """Open each notebook in the course's JupyterLab, let autosave run, close it: git sees no change.

    JupyterLab writes the kernel's kernelspec and language_info (with its Python version) into an
    opened notebook and autosaves it when they differ from the stored ones. The copy's notebooks
    name a Python no kernel has, so every notebook is marked modified and saved: the file must
    come out byte for byte as it was (the course's server restores the stored metadata), and the
    kernelspec, which needs no such help, must already be the kernel's.
    """
    repo = course_copy(tmp_path / "repo")
    paths = [path for folder in editions(repo / "notebooks").values() for path in notebook_paths(folder)]
    before = {path: path.stat().st_mtime_ns for path in paths}
    autosave = {"@jupyterlab/docmanager-extension:plugin": {"autosaveInterval": 2}}   # seconds
    with course_lab(tmp_path / "home", repo / "notebooks", repo / "jupyter-config", autosave) as base_url, \
            chromium_tabs(chromium, tmp_path / "profile") as (open_tab, close_tab, _port):
        for start in range(0, len(paths), 4):    # four notebooks (and kernels) at a time
            batch = paths[start:start + 4]
            tabs = [open_tab(f"{base_url}/lab/tree/{path.relative_to(repo / 'notebooks').as_posix()}")
                    for path in batch]
            deadline = time.monotonic() + 90
            while any(path.stat().st_mtime_ns == before[path] for path in batch) and time.monotonic() < deadline:
                time.sleep(1)
            time.sleep(3)   # one more autosave round after the kernel's metadata arrived
            for tab in tabs:
                close_tab(tab)
    unsaved = [path.name for path in paths if path.stat().st_mtime_ns == before[path]]
    assert not unsaved, f"JupyterLab never saved {unsaved}: the test did not exercise autosave"
    status = subprocess.run(["git", "status", "--porcelain", "notebooks/"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout
    diff = subprocess.run(["git", "diff", "--stat", "notebooks/"], cwd=repo, capture_output=True, text=True).stdout
    assert not status, f"opening the notebooks in JupyterLab changed them:\n{status}\n{diff}"


# --- the Chinese edition: CJK text is drawn with a CJK font, not as boxes ("tofu") ----------

# In the page: the first visible element with Chinese text, and two different Chinese characters
# of it drawn on a canvas in that element's font. Without a font that has them, every CJK character
# is drawn as the same empty box, so the two pictures are equal.
CJK_PROBE = r"""(() => {
  const han = /[\u4e00-\u9fff]/;
  const distinctHan = e => new Set([...e.textContent].filter(c => han.test(c))).size;
  const element = [...document.querySelectorAll('h1, h2, h3, p, li, td, a, span')].find(
      e => distinctHan(e) >= 2 && e.getClientRects().length > 0);
  if (!element) return null;
  const chars = [...element.textContent].filter(c => han.test(c));
  const first = chars[0], second = chars.find(c => c !== first);
  const font = getComputedStyle(element).font.replace(/\d+(\.\d+)?px/, '48px');
  const draw = text => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 64;
    const context = canvas.getContext('2d');
    context.font = font;
    if (text) context.fillText(text, 4, 52);
    return canvas.toDataURL();
  };
  return JSON.stringify({first, second, font, text: element.textContent.trim().slice(0, 60),
                         distinct: draw(first) !== draw(second), inked: draw(first) !== draw('')});
})()"""


def evaluate_when_ready(program: str, url: str, expression: str, profile: Path, timeout: float = 90):
    """Open ``url`` in headless Chromium and evaluate ``expression`` in it (DevTools protocol)
    until it returns something other than null; returns that value."""
    websocket = pytest.importorskip("websocket", reason="websocket-client (installed with JupyterLab)")
    with chromium_tabs(program, profile) as (open_tab, close_tab, port):
        tab = open_tab(url)
        connection = websocket.create_connection(f"ws://127.0.0.1:{port}/devtools/page/{tab}", timeout=30)
        try:
            deadline = time.monotonic() + timeout
            for message_id in range(1, 10_000):
                connection.send(json.dumps({"id": message_id, "method": "Runtime.evaluate",
                                            "params": {"expression": expression, "returnByValue": True}}))
                while True:
                    answer = json.loads(connection.recv())
                    if answer.get("id") == message_id:
                        break
                value = answer.get("result", {}).get("result", {}).get("value")
                if value is not None or time.monotonic() > deadline:
                    return value
                time.sleep(1)
        finally:
            connection.close()
            close_tab(tab)


@pytest.fixture(scope="module")
def chinese_notebook() -> Path:
    """The notebook of the Chinese edition that opens with the most Chinese (skips while
    notebooks/zh/ has none)."""
    paths = notebook_paths(NOTEBOOKS / "zh") if (NOTEBOOKS / "zh").is_dir() else []
    if not paths:
        pytest.skip("no Chinese edition yet (notebooks/zh/)")
    def first_cell_han(path):  # the notebook whose title cell has the most Chinese
        first = next((cell.source for cell in read_notebook(path).cells if cell.cell_type == "markdown"), "")
        return len(re.findall(r"[\u4e00-\u9fff]", first))

    return max(paths, key=first_cell_han)


def assert_chinese_is_drawn(probe: str | None, where: str) -> None:
    assert probe, f"no visible Chinese text in {where}"
    found = json.loads(probe)
    assert found["inked"] and found["distinct"], (
        f"Chinese text in {where} ({found['text']!r}) is drawn as boxes: '{found['first']}' and "
        f"'{found['second']}' look the same in the font {found['font']!r}. Install a CJK font "
        "(`make chromium` as root installs fonts-noto-cjk).")


def test_chinese_notebook_in_jupyterlab_draws_chinese_text(chromium, chinese_notebook, tmp_path):
    home = tmp_path / "home"
    root_dir = home / "notebooks"
    shutil.copytree(chinese_notebook.parent, root_dir / "zh", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    with course_lab(home, root_dir) as base_url:
        url = f"{base_url}/lab/tree/zh/{chinese_notebook.name}"
        probe = evaluate_when_ready(chromium, url, CJK_PROBE, tmp_path / "profile")
        assert_chinese_is_drawn(probe, f"JupyterLab's zh/{chinese_notebook.name}")
        screenshot(chromium, url, tmp_path / "profile", f"jupyterlab_zh_{chinese_notebook.stem}.png", "1400,1000")


def test_chinese_site_page_draws_chinese_text(chromium, chinese_notebook, tmp_path):
    source = tmp_path / "notebooks"
    shutil.copytree(chinese_notebook.parent, source / "zh", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copy(NOTEBOOKS / chinese_notebook.name, source)
    pages = site.build(source, tmp_path / "site")
    page = next(path for path in pages if path.parent.name == "zh" and path.stem == chinese_notebook.stem)
    probe = evaluate_when_ready(chromium, page.as_uri(), CJK_PROBE, tmp_path / "profile")
    assert_chinese_is_drawn(probe, f"the site's zh/{page.name}")
    screenshot(chromium, page.as_uri(), tmp_path / "profile", f"site_zh_{chinese_notebook.stem}.png", "1200,1600")
