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
import io
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

from tools import site  # noqa: E402
from tools.course import notebook_paths, read_notebook  # noqa: E402

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


def stop(server: subprocess.Popen, runtime_dir: Path) -> None:
    """Stop JupyterLab (it shuts its kernels down), then anything of ours that is left."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
    for pid in processes_mentioning(str(runtime_dir)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory, chromium):
    """JupyterLab serving a copy of notebooks/ on 127.0.0.1 (no token); yields its base URL."""
    home = tmp_path_factory.mktemp("jupyterlab")
    root_dir = home / "notebooks"
    shutil.copytree(NOTEBOOKS, root_dir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    # No "Would you like to get notified about Jupyter news?" pop-up over the screenshot.
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    runtime_dir = home / "runtime"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(runtime_dir),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
    port = free_port()
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               "--IdentityProvider.token=", f"--ServerApp.root_dir={root_dir}"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = open(home / "jupyterlab.log", "w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                              start_new_session=True)
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, f"JupyterLab stopped:\n{(home / 'jupyterlab.log').read_text()[-3000:]}"
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

    shot = screenshot(chromium, url, tmp_path / "profile", f"jupyterlab_{notebook.stem}.png", "1400,2400")
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
