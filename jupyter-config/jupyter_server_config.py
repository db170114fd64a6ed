# Configuration of the course's JupyterLab server (`make lab`, `make lab-student`, Binder, and
# `python -m tools.lab notebooks` in a conda environment). tools/lab.py adds this folder to
# JUPYTER_CONFIG_PATH for that server only; it changes nothing else on the machine.
#
# Opening a notebook changes nothing (tools/notebook_metadata.py): the server hands JupyterLab
# each course notebook with the metadata its kernel will report (the Python version included),
# so JupyterLab finds nothing to update and the notebook is not marked modified; and every
# notebook it saves keeps the course's stored metadata, whatever Python the kernel runs.
import logging
import sys
from pathlib import Path

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))   # this checkout's tools/, wherever the server was started

from tools.notebook_metadata import as_served, served_kernel  # noqa: E402


class CourseContentsManager(AsyncLargeFileManager):
    """Jupyter server's default contents manager, serving notebooks as tools.notebook_metadata.as_served says."""

    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
            as_served(model["content"], *served_kernel(getattr(self.parent, "kernel_spec_manager", None)))
        return model


c.ServerApp.contents_manager_class = CourseContentsManager  # noqa: F821 (c is traitlets' config)
c.ContentsManager.pre_save_hook = "tools.notebook_metadata.pre_save_hook"  # noqa: F821

# Kernels: one that no browser tab shows any more (the tab or the browser was closed, or stopped
# answering) and that has run nothing for 10 minutes is shut down; the server looks every minute.
# A kernel a tab still shows is never shut down, however long the learner reads.
c.MappingKernelManager.cull_idle_timeout = 600  # noqa: F821
c.MappingKernelManager.cull_interval = 60  # noqa: F821
c.MappingKernelManager.cull_connected = False  # noqa: F821

# jupyter-lsp (installed with JupyterLab) would list the 19 language servers it looks for and does
# not find; the course uses none. nbdime (installed for `make update`) adds nothing to this server.
c.LanguageServerManager.autodetect = False  # noqa: F821
c.ServerApp.jpserver_extensions = {"nbdime": False}  # noqa: F821


class QuietConsole(logging.Filter):
    """Leaves out of the server's console two lines a learner cannot act on.

    - "Notebook X is not trusted", on every open and save: trust only decides whether JupyterLab
      shows a stored HTML or SVG output, and the course's stored pictures are PNGs, which it shows
      in any notebook;
    - "WebSocket ping timeout", once per connection of a browser that was closed without saying so
      (or went to sleep): said once, in words, and then no more.
    """

    told_about_pings = False

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith("Notebook ") and message.endswith(" is not trusted"):
            return False
        if message.startswith("WebSocket ping timeout"):
            if QuietConsole.told_about_pings:
                return False
            QuietConsole.told_about_pings = True
            record.msg, record.args = ("A browser tab stopped answering (closed, or asleep): the server closed "
                                       "its connections; its kernels shut down after 10 idle minutes. (Said "
                                       "once; later ones are not shown.)", ())
        return True


logging.getLogger("ServerApp").addFilter(QuietConsole())
