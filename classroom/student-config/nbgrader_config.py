# nbgrader in a student's JupyterLab on the class's hub (classroom/jupyterhub_config.py puts this
# folder on the student's JUPYTER_CONFIG_PATH). The same course id and exchange as the teacher's
# course folder (classroom/course/nbgrader_config.py, written by `make classroom`).
import os

c = get_config()  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.course_id = os.environ.get("NBGRADER_COURSE_ID", "minigrad")
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")
# A submission is signed with the student's hub name (nbgrader would take the account's name,
# which is "jovyan" for everyone on Zero to JupyterHub).
if os.environ.get("JUPYTERHUB_USER"):
    c.CourseDirectory.student_id = os.environ["JUPYTERHUB_USER"]
# `nbgrader submit --student=<classmate>` is refused at once (tools/nbgrader_exchange.py, from this
# checkout); the teacher's collect refuses such a submission whatever program made it.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
c.ExchangeFactory.submit = "tools.nbgrader_exchange.OwnerCheckedSubmit"
