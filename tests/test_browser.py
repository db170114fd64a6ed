"""What a learner sees, checked in a real browser (headless Chromium).

1. A stored notebook opened in JupyterLab, before anything is run: the backward-graph picture
   stored in the notebook is rendered in an output area (checked in the page's DOM) and painted
   on screen (its exact pixels are found in a screenshot).
2. The notebook's page of the site (``make site``): the stored graph is painted, the worked
   solutions and "Under the hood" listings are folded, nothing comes from the network, and the
   language switch leads to the Chinese page and back.
3. No "Jupyter news" pop-up; every notebook opened in the course's JupyterLab, with a kernel whose
   Python version the file does not name, is not marked modified, and git sees no change.
4. Chinese text is drawn with a CJK font, in JupyterLab and on the site.
5. Every slide deck of both editions (``make slides``) at 1280x720 and 1920x1080: the right
   arrow reaches every slide in order, no slide overflows, code is at least 20px, nothing comes
   from the network, no error is logged; formulas are typeset offline. The counts go to
   ``build/screenshots/slides.json``.
6. Live slides (``make lecture``): 00 opened with RISE in the course's JupyterLab, cells run on
   their slides.

Screenshots, and close-ups of the graph in them (``*_graph.png``), are kept in
``build/screenshots/`` for a person to look at. Without a ``chromium``
program the tests are skipped, unless MINIGRAD_REQUIRE_BROWSER=1 (``make browser`` sets it where it
installs Chromium itself: as root with apt-get), in which case they fail. Long steps print progress
lines (``make browser`` runs pytest with -v).
"""
from __future__ import annotations

import base64
import contextlib
import importlib.util
import io
import json
import os
import re
import shutil
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

from course_server import course_lab, free_port, stop_group  # noqa: E402
from tools.course import editions, has_math, notebook_paths, read_notebook  # noqa: E402

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


# --- JupyterLab on loopback (tests/course_server.py starts it as `make lab` does) -------------

@pytest.fixture
def progress(request):
    """Print a line at once, even while pytest captures output (for the long tests)."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")

    def say(text: str) -> None:
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line(f"    {text}")
    return say


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory, chromium):
    """The course's JupyterLab serving a copy of notebooks/; yields its base URL."""
    home = tmp_path_factory.mktemp("jupyterlab")
    root_dir = home / "notebooks"
    shutil.copytree(NOTEBOOKS, root_dir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    with course_lab(home, root_dir) as (base_url, _log):
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


SITE = ROOT / "build" / "site"


def site_page(relative: str) -> Path:
    """A page of the site `make site` built (make browser builds it), failing when it is missing
    or older than its notebook."""
    page = SITE / relative
    notebook = NOTEBOOKS / relative.replace(".html", ".ipynb")
    assert page.exists() and (not notebook.exists() or page.stat().st_mtime >= notebook.stat().st_mtime), \
        f"{page.relative_to(ROOT)} is missing or older than its notebook: run `make site` (make browser does)"
    return page


# In a site page: the pictures of the article; then one of them scrolled into view, whether it
# was painted (decoded, with a size), and how many folded cells are closed.
SITE_IMAGES = "JSON.stringify([...document.querySelectorAll('article img')].map(image => image.src))"
SITE_PROBE = r"""(() => {
  const image = document.querySelectorAll('article img')[%d];
  image.scrollIntoView();
  return JSON.stringify({painted: image.complete && image.naturalWidth > 0 && image.getBoundingClientRect().height > 0,
                         folded: [...document.querySelectorAll('details.hide')].filter(d => !d.open).length});
})()"""


def test_site_page_shows_the_stored_graph_and_folds_solutions(chromium, notebook, tmp_path):
    graph, heading = stored_graph(notebook)
    page = site_page(f"{notebook.stem}.html")
    with devtools_page(chromium, tmp_path / "profile", page.as_uri()) as tab:
        assert tab.wait_for("document.readyState === 'complete'", 60)
        sources = json.loads(tab.evaluate(SITE_IMAGES))
        files = [Path(urllib.request.url2pathname(src[len("file://"):])) for src in sources if src.startswith("file://")]
        index = next((i for i, path in enumerate(files) if base64.b64encode(path.read_bytes()).decode() == graph), None)
        assert index is not None, f"the stored graph under '{heading}' is not a picture of {page.name} ({sources})"
        found = json.loads(tab.evaluate(SITE_PROBE % index))
        tab.evaluate("1")
        requested = tab.requested()
    assert found["painted"], f"the graph of {page.name} is not painted"
    folded = sum(bool({"solution", "under-the-hood"} & set(cell.metadata.get("tags", [])))
                 for cell in read_notebook(notebook).cells)
    assert found["folded"] == folded, f"{page.name}: {found['folded']} folded cells, the notebook has {folded}"
    assert all(url.startswith(("file:", "data:")) for url in requested), \
        f"{page.name} asks the network for {[u for u in requested if not u.startswith(('file:', 'data:'))]}"
    screenshot(chromium, page.as_uri(), tmp_path / "shot", f"site_{notebook.stem}.png", "1280,1600")


def test_site_language_switch_leads_to_the_same_page_in_the_other_edition_and_back(chromium, notebook, tmp_path):
    english = site_page(f"{notebook.stem}.html")
    with devtools_page(chromium, tmp_path / "profile", english.as_uri()) as tab:
        visited = []
        for _ in range(2):
            assert tab.wait_for("document.readyState === 'complete' && document.querySelector('a.language-switch') !== null", 60)
            visited.append((tab.evaluate("location.href"), tab.evaluate("document.documentElement.lang"),
                            tab.evaluate("document.querySelector('article h1').textContent")))
            tab.evaluate("document.querySelector('a.language-switch').click()")
            time.sleep(2)
        assert tab.wait_for("document.readyState === 'complete'", 60)
        visited.append((tab.evaluate("location.href"), tab.evaluate("document.documentElement.lang"), ""))
    (en_url, en_lang, en_title), (zh_url, zh_lang, zh_title), (back_url, _, _) = visited
    assert en_lang == "en" and zh_lang == "zh", visited
    assert zh_url == (SITE / "zh" / english.name).as_uri() and back_url == english.as_uri(), visited
    assert en_title[:2] == zh_title[:2] == notebook.name[:2] and re.search(r"[\u4e00-\u9fff]", zh_title), visited


def test_course_server_shows_no_jupyter_news_pop_up(chromium, jupyterlab, notebook, tmp_path):
    # The course's jupyter-config/ disables JupyterLab's announcements plugin, which otherwise asks
    # "Would you like to get notified about official Jupyter news?" in a toast over the notebook.
    with urllib.request.urlopen(f"{jupyterlab}/lab") as page:
        assert "@jupyterlab/apputils-extension:announcements" in page.read().decode()
    dom = run_chromium(chromium, f"{jupyterlab}/lab/tree/{notebook.name}", tmp_path / "profile",
                       "--window-size=1400,900", "--dump-dom")
    assert "jp-Notebook" in dom, "the notebook did not open"
    assert not re.search(r"Jupyter news|notified about", dom, re.IGNORECASE), "the news pop-up is shown"


# --- driving a page over Chromium's DevTools protocol ------------------------------------------

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


class Page:
    """One tab of headless Chromium, driven over the DevTools protocol. Every event Chromium sends
    (console messages, exceptions, network requests of the enabled domains) is kept in ``events``."""

    def __init__(self, connection) -> None:
        self.connection = connection
        self.events: list[dict] = []
        self.last_id = 0

    def call(self, method: str, **params):
        self.last_id += 1
        self.connection.send(json.dumps({"id": self.last_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.connection.recv())
            if message.get("id") == self.last_id:
                assert "error" not in message, f"{method}: {message['error']}"
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression: str, await_promise: bool = False):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=await_promise)
        assert "exceptionDetails" not in result, f"{expression[:80]}...: {result['exceptionDetails']}"
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 90):
        """Evaluate ``expression`` every second until it gives something other than null/false."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value not in (None, False) or time.monotonic() > deadline:
                return value
            time.sleep(1)

    def problems(self) -> list[str]:
        """Errors and warnings the page logged, and its uncaught exceptions."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append(details.get("exception", {}).get("description") or details.get("text", ""))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                found.append(" ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
                found.append(params["entry"].get("text", ""))
        return found

    def requested(self) -> list[str]:
        return [event["params"]["request"]["url"] for event in self.events
                if event.get("method") == "Network.requestWillBeSent"]


@contextlib.contextmanager
def devtools_page(program: str, profile: Path, url: str | None = None, timeout: float = 300):
    """A ``Page`` in headless Chromium, with console, exceptions and network requests recorded,
    showing ``url`` (if given; ``Page.navigate`` returns before the page has loaded)."""
    websocket = pytest.importorskip("websocket", reason="websocket-client (installed with JupyterLab)")
    with chromium_tabs(program, profile) as (open_tab, close_tab, port):
        tab = open_tab("about:blank")
        connection = websocket.create_connection(f"ws://127.0.0.1:{port}/devtools/page/{tab}", timeout=timeout)
        page = Page(connection)
        try:
            for domain in ("Runtime", "Log", "Network", "Page"):
                page.call(f"{domain}.enable")
            if url:
                page.call("Page.navigate", url=url)
            yield page
        finally:
            connection.close()
            close_tab(tab)


def evaluate_when_ready(program: str, url: str, expression: str, profile: Path, timeout: float = 90):
    """Open ``url`` in headless Chromium and evaluate ``expression`` in it until it returns
    something other than null; returns that value."""
    with devtools_page(program, profile, url) as page:
        return page.wait_for(expression, timeout)


# --- opening a notebook changes nothing -----------------------------------------------------

COURSE_FILES = ("notebooks", "tools", "jupyter-config", ".gitignore")
NO_AUTOSAVE = {"@jupyterlab/docmanager-extension:plugin": {"autosave": False}}


def course_copy(target: Path, course_server: bool = True) -> Path:
    """A git repository with a copy of the course's notebooks, tools and server configuration;
    without ``course_server``, a JupyterLab configuration with the course's page settings only
    (no news) and without its server configuration (a plain ``jupyter lab``)."""
    for name in COURSE_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns(
                ".ipynb_checkpoints", "__pycache__"))
        else:
            shutil.copy(source, target / name)
    if not course_server:
        (target / "jupyter-config" / "jupyter_server_config.py").unlink()
    for command in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.name=test", "-c", "user.email=test@example.org", "commit", "-qm", "copy"]):
        subprocess.run(command, cwd=target, check=True, capture_output=True)
    return target


# In JupyterLab's page (window.jupyterapp, exposed by --LabApp.expose_app_in_browser): open each
# notebook, wait for its kernel's info reply (whose language_info JupyterLab writes into the
# notebook), then read whether the notebook is marked modified; shut the kernel down and close.
OPEN_NOTEBOOKS = r"""(async (paths) => {
  const app = window.jupyterapp;
  await app.restored;
  const open = async (path) => {
    const widget = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    await widget.context.ready;
    await widget.sessionContext.ready;
    const info = await widget.sessionContext.session.kernel.info;
    await new Promise(resolve => setTimeout(resolve, 1500));   // the panel's own handlers run
    const model = widget.context.model;
    const result = {path, dirty: model.dirty, kernel: info.language_info,
                    notebook: model.getMetadata('language_info')};
    await widget.sessionContext.shutdown();
    widget.dispose();
    return result;
  };
  return JSON.stringify(await Promise.all(paths.map(open)));
})(%s)"""


def open_in_jupyterlab(page: Page, base_url: str, paths: list[str], say, batch: int = 4) -> list[dict]:
    """Open ``paths`` (relative to the server's root) in JupyterLab, ``batch`` notebooks (and
    kernels) at a time; returns what OPEN_NOTEBOOKS found for each."""
    page.call("Page.navigate", url=f"{base_url}/lab")
    assert page.wait_for("window.jupyterapp !== undefined", 120), "JupyterLab did not start in the page"
    found = []
    for start in range(0, len(paths), batch):
        chunk = paths[start:start + batch]
        found += json.loads(page.evaluate(OPEN_NOTEBOOKS % json.dumps(chunk), await_promise=True))
        say(f"opened {start + len(chunk)}/{len(paths)} notebooks: {', '.join(Path(p).stem[:2] for p in chunk)}")
    return found


def test_opening_every_notebook_in_jupyterlab_changes_nothing(chromium, tmp_path, progress):
    """Open each notebook in the course's JupyterLab: none is marked modified, git sees no change.

    JupyterLab writes the kernel's language_info (with its Python version) into an opened notebook
    and marks it modified when that differs from what it loaded. The stored notebooks name no
    Python version, so every kernel's differs from the file; the course's server hands JupyterLab
    the kernel's own. The same check on a plain server marks the notebook modified, which shows
    that the check can fail.
    """
    repo = course_copy(tmp_path / "repo")
    paths = [path.relative_to(repo / "notebooks").as_posix()
             for folder in editions(repo / "notebooks").values() for path in notebook_paths(folder)]
    expose = ("--LabApp.expose_app_in_browser=True",)
    with course_lab(tmp_path / "home", repo / "notebooks", repo, NO_AUTOSAVE, expose) as (base_url, _log), \
            devtools_page(chromium, tmp_path / "profile") as page:
        progress(f"the course's JupyterLab: opening {len(paths)} notebooks")
        found = open_in_jupyterlab(page, base_url, paths, progress)
    for result in found:
        stored = json.loads((repo / "notebooks" / result["path"]).read_text(encoding="utf-8"))
        assert "version" not in stored["metadata"]["language_info"], result["path"]
        assert result["kernel"]["version"], "the kernel reports its Python version"
        assert result["notebook"] == result["kernel"], result["path"]
        assert not result["dirty"], f"{result['path']} is marked modified on opening"
    status = subprocess.run(["git", "status", "--porcelain", "notebooks/"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout
    assert not status, f"opening the notebooks in JupyterLab changed them:\n{status}"

    plain = course_copy(tmp_path / "plain", course_server=False)
    with course_lab(tmp_path / "plain-home", plain / "notebooks", plain, NO_AUTOSAVE, expose) as (base_url, _log), \
            devtools_page(chromium, tmp_path / "plain-profile") as page:
        progress("a plain JupyterLab (without the course's server configuration): opening one notebook")
        [control] = open_in_jupyterlab(page, base_url, paths[:1], progress)
    assert control["dirty"] and control["notebook"] == control["kernel"], \
        "on a plain server the notebook should be marked modified: the check above could not fail"


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
    with course_lab(home, root_dir) as (base_url, _log):
        url = f"{base_url}/lab/tree/zh/{chinese_notebook.name}"
        probe = evaluate_when_ready(chromium, url, CJK_PROBE, tmp_path / "profile")
        assert_chinese_is_drawn(probe, f"JupyterLab's zh/{chinese_notebook.name}")
        screenshot(chromium, url, tmp_path / "profile", f"jupyterlab_zh_{chinese_notebook.stem}.png", "1400,1000")


def test_chinese_site_page_draws_chinese_text(chromium, chinese_notebook, tmp_path):
    page = site_page(f"zh/{chinese_notebook.stem}.html")
    probe = evaluate_when_ready(chromium, page.as_uri(), CJK_PROBE, tmp_path / "profile")
    assert_chinese_is_drawn(probe, f"the site's zh/{page.name}")
    screenshot(chromium, page.as_uri(), tmp_path / "profile", f"site_zh_{chinese_notebook.stem}.png", "1280,1600")


# --- the slide decks (make slides) ----------------------------------------------------------

SLIDES = ROOT / "build" / "slides"
SCREENS = ((1280, 720), (1920, 1080))
CANVAS = (1280, 720)        # reveal.js's canvas (tools/templates/lecture), scaled to the screen

# In a deck: press the right arrow (a keydown event, as the keyboard sends it to reveal.js) until
# the last slide, measuring each slide reached on reveal.js's canvas: how far its content reaches
# down and right, and its smallest code font.
WALK_DECK = r"""(() => {
  const canvas = document.querySelector('.reveal .slides'), slides = Reveal.getSlides();
  const reached = [], overflowing = [];
  let code = 1000;
  Reveal.slide(0, 0);
  for (let step = 0; step <= slides.length; step++) {
    const slide = Reveal.getCurrentSlide(), index = slides.indexOf(slide);
    if (reached.includes(index)) break;
    reached.push(index);
    const box = canvas.getBoundingClientRect(), scale = Reveal.getScale();
    let bottom = 0, right = 0;
    for (const element of slide.querySelectorAll('*')) {
      if (element.closest('aside.notes')) continue;
      const r = element.getBoundingClientRect();
      if (!r.width && !r.height) continue;
      bottom = Math.max(bottom, (r.bottom - box.top) / scale);
      right = Math.max(right, (r.right - box.left) / scale);
      if (element.tagName === 'PRE' && element.textContent.trim())
        code = Math.min(code, parseFloat(getComputedStyle(element).fontSize));
    }
    if (bottom > %(height)d + 0.5 || right > %(width)d + 0.5) {
      const heading = slide.querySelector('h1, h2, h3');
      overflowing.push(`slide ${index + 1} (${heading ? heading.textContent.replace('¶', '').trim().slice(0, 40) : ''}):`
                       + ` content reaches ${Math.round(bottom)}px down, ${Math.round(right)}px right`);
    }
    if (Reveal.isLastSlide()) break;
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', code: 'ArrowRight', keyCode: 39, bubbles: true}));
  }
  const unreachable = slides.map((_, i) => i).filter(i => !reached.includes(i)).map(i => i + 1);
  return JSON.stringify({slides: slides.length, order: reached.every((i, n) => i === n), overflowing, unreachable, code});
})()"""


def deck_paths() -> list[Path]:
    """Every deck `make slides` writes, both editions, failing when one is missing or older than
    its notebook."""
    decks = []
    for language, folder in editions(NOTEBOOKS).items():
        for notebook in notebook_paths(folder):
            deck = SLIDES / ("" if language == "en" else language) / f"{notebook.stem}.slides.html"
            assert deck.exists() and deck.stat().st_mtime >= notebook.stat().st_mtime, \
                f"{deck.relative_to(ROOT)} is missing or older than its notebook: run `make slides` (make browser does)"
            decks.append(deck)
    return decks


def walk_deck(page: Page, deck: Path, size: tuple[int, int]) -> dict:
    """Open ``deck`` on a screen of ``size`` and walk it with the right arrow (WALK_DECK)."""
    width, height = size
    page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
    page.call("Page.navigate", url=deck.as_uri())
    assert page.wait_for("document.querySelector('.reveal.ready') !== null", 60), f"{deck.name}: reveal.js did not start"
    if page.evaluate("!!window.MathJax"):
        assert page.wait_for("!!(MathJax.startup && MathJax.startup.promise)", 30), f"{deck.name}: MathJax did not start"
        page.evaluate("MathJax.startup.promise.then(() => true)", await_promise=True)
    return json.loads(page.evaluate(WALK_DECK % {"width": CANVAS[0], "height": CANVAS[1]}))


def test_every_slide_of_every_deck_fits_the_screen_and_the_arrow_reaches_it(chromium, tmp_path, progress):
    """Every deck of both editions, at 1280x720 and at 1920x1080: the right arrow alone walks
    every slide in order, no slide's content runs past the screen, code is at least 20px on the
    1280x720 canvas, and the deck loads nothing from the network and logs no error."""
    decks = deck_paths()
    counts = {"decks": len(decks), "slides": 0, "overflowing": 0, "unreachable": 0, "per_deck": {}}
    problems = []
    with devtools_page(chromium, tmp_path / "profile") as page:
        for deck in decks:
            name = deck.relative_to(SLIDES).as_posix()
            for size in SCREENS:
                walked = walk_deck(page, deck, size)
                label = f"{name} at {size[0]}x{size[1]}"
                problems += [f"{label}: {text}" for text in walked["overflowing"]]
                if walked["unreachable"] or not walked["order"]:
                    problems.append(f"{label}: the right arrow never reaches slides {walked['unreachable']}"
                                    f"{'' if walked['order'] else ', or not in order'}")
                if walked["code"] < 20:
                    problems.append(f"{label}: code at {walked['code']}px (at least 20px on the canvas)")
                counts["overflowing"] += len(walked["overflowing"])
                counts["unreachable"] += len(walked["unreachable"])
            counts["slides"] += walked["slides"]
            counts["per_deck"][name] = walked["slides"]
            progress(f"{name}: {walked['slides']} slides walked at {' and '.join(f'{w}x{h}' for w, h in SCREENS)}")
        page.evaluate("1")
        online = [url for url in page.requested() if not url.startswith(("file:", "data:"))]
        logged = page.problems()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "slides.json").write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    progress(f"decks {counts['decks']}, slides {counts['slides']}, overflowing {counts['overflowing']}, "
             f"unreachable {counts['unreachable']} (build/screenshots/slides.json)")
    assert not online, f"the decks ask the network for {online[:5]}"
    assert not logged, f"the decks' console shows {logged[:5]}"
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_a_deck_with_formulas_typesets_them_offline(chromium, tmp_path):
    deck = next(path for path in deck_paths() if has_math(read_notebook(NOTEBOOKS / f"{path.name[:-len('.slides.html')]}.ipynb")))
    with devtools_page(chromium, tmp_path / "profile", deck.as_uri()) as page:
        typeset = page.wait_for("document.querySelectorAll('mjx-container').length || null", 60)
        requested = page.requested()
    assert typeset, f"{deck.name}: no formula typeset by MathJax"
    assert any("mathjax" in url for url in requested) and all(url.startswith(("file:", "data:")) for url in requested)
    screenshot(chromium, deck.as_uri() + "#/0", tmp_path / "shot", f"slides_{deck.stem}.png", "1280,720")


# --- live slides in JupyterLab (make lecture: RISE) ------------------------------------------

def press(page: Page, key: str, code: str, key_code: int, modifiers: int = 0) -> None:
    for kind in ("keyDown", "keyUp"):
        page.call("Input.dispatchKeyEvent", type=kind, key=key, code=code, windowsVirtualKeyCode=key_code,
                  nativeVirtualKeyCode=key_code, modifiers=modifiers)


PRESENT = "document.querySelector('.reveal .slides > section.present')"
PROMPTS = f"[...{PRESENT}.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(e => e.innerText.trim())"


def test_live_slides_in_jupyterlab_run_the_cells_on_the_slide(chromium, tmp_path, progress):
    """`make lecture`'s copy of 00 (outputs cleared here, so that only a run can show them) opened
    as live slides (RISE) in the course's JupyterLab: Space walks the slides, Ctrl+Enter runs the
    set-up cell on its slide, and then the selected cell of a later slide, whose output appears."""
    if importlib.util.find_spec("jupyterlab_rise") is None:
        reason = "jupyterlab-rise is not installed (make lecture-env installs it)"
        if os.environ.get("MINIGRAD_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    import nbformat

    from tools import slides

    notebook = NOTEBOOKS / PREFERRED_NOTEBOOK
    nb = read_notebook(notebook)
    live = slides.live_notebook(nb, slides.lecture_deck(nb)[0])
    for cell in live.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    root = tmp_path / "lecture"
    root.mkdir()
    nbformat.write(live, str(root / notebook.name))
    shutil.copy(ROOT / "tools" / "templates" / "lecture" / "static" / "rise.css", root)
    target = next(i for i, cell in enumerate(live.cells) if i > 1 and cell.cell_type == "code"
                  and cell.metadata.slideshow["slide_type"] != "skip" and "print(x)" in cell.source)
    slide = sum(cell.metadata.slideshow["slide_type"] == "slide" for cell in live.cells[:target + 1]) - 1
    with course_lab(tmp_path / "home", root) as (base_url, _log), \
            devtools_page(chromium, tmp_path / "profile", f"{base_url}/rise/{notebook.name}") as page:
        page.call("Emulation.setDeviceMetricsOverride", width=1280, height=720, deviceScaleFactor=1, mobile=False)
        assert page.wait_for(f"{PRESENT} !== null && document.querySelector('.jp-CodeCell') !== null", 120), \
            "RISE did not show the notebook as slides"
        time.sleep(3)
        press(page, " ", "Space", 32)
        assert page.wait_for(f"{PRESENT}.innerText.includes('import minigrad as torch') || null", 20)
        time.sleep(1)                                         # RISE selects the slide's code cell
        press(page, "Enter", "Enter", 13, modifiers=2)        # Ctrl+Enter
        assert page.wait_for(f"{PROMPTS}.includes('[1]:') || null", 60), "the set-up cell did not run"
        progress(f"live slides: set-up cell run; Space to slide {slide + 1}")
        for _ in range(slide - 1):
            press(page, " ", "Space", 32)
            time.sleep(0.3)
        assert page.wait_for(f"[...document.querySelectorAll('.reveal .slides > section')].indexOf({PRESENT}) === {slide}", 20)
        box = json.loads(page.evaluate(f"JSON.stringify({PRESENT}.querySelector('.jp-CodeCell .jp-InputPrompt').getBoundingClientRect())"))
        for kind in ("mousePressed", "mouseReleased"):
            page.call("Input.dispatchMouseEvent", type=kind, x=box["x"] + 5, y=box["y"] + 5, button="left", clickCount=1)
        time.sleep(0.5)
        press(page, "Enter", "Enter", 13, modifiers=2)
        output = page.wait_for(f"[...{PRESENT}.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText).join('') || null", 60)
        code_px = page.evaluate(f"parseFloat(getComputedStyle({PRESENT}.querySelector('.cm-content')).fontSize)")
        shot = page.call("Page.captureScreenshot", format="png")["data"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "live_slides_00.png").write_bytes(base64.b64decode(shot))
    assert output and "tensor([1., 2., 3.])" in output, f"the cell on slide {slide + 1} printed {output!r}"
    assert code_px >= 20, f"code on the live slides is {code_px}px (rise.css)"
