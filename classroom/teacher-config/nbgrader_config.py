# nbgrader in a teacher's (admin's) JupyterLab on the class's hub (classroom/jupyterhub_config.py
# puts this folder on their JUPYTER_CONFIG_PATH): the formgrader and nbgrader's commands use the
# course folder ~/minigrad-course of the teacher's account, which `make classroom` run as that
# account creates (README.md, "Grading in the browser"). nbgrader then reads that folder's own
# nbgrader_config.py too. MINIGRAD_COURSE_DIR names another folder; it must be inside the
# teacher's home, where their JupyterLab runs.
import os

c = get_config()  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.root = os.environ.get("MINIGRAD_COURSE_DIR") or os.path.expanduser("~/minigrad-course")
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")
