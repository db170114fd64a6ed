"""pytest's doctests of tools/ (`make test`): the nbgrader plug-ins need nbgrader, which only
`.venv-classroom` has (`make classroom-test` runs their tests)."""
import importlib.util

collect_ignore = [] if importlib.util.find_spec("nbgrader") else ["nbgrader_grading.py", "nbgrader_exchange.py"]
