# Configuration of the course's JupyterLab server (`make lab`, `make lab-student`, Binder, and
# `python -m tools.lab notebooks` in a conda environment). tools/lab.py adds this folder to
# JUPYTER_CONFIG_PATH for that server only; it changes nothing else on the machine.
#
# Opening a notebook changes nothing (tools/notebook_metadata.py): the server hands JupyterLab
# each course notebook with the metadata its kernel will report (the Python version included),
# so JupyterLab finds nothing to update and the notebook is not marked modified; and every
# notebook it saves keeps the course's stored metadata, whatever Python the kernel runs.
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
