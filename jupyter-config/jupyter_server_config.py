# Configuration of the course's JupyterLab server (`make lab`, `make lab-student`, Binder).
# tools/lab.py adds this folder to JUPYTER_CONFIG_PATH; it changes nothing else on the machine.
#
# Every notebook the server saves keeps the course's stored metadata (tools/notebook_metadata.py):
# opening a notebook and letting autosave run leaves the file unchanged, whatever Python the
# kernel runs.
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))   # this checkout's tools/, wherever the server was started

c.ContentsManager.pre_save_hook = "tools.notebook_metadata.pre_save_hook"  # noqa: F821 (c is traitlets' config)
