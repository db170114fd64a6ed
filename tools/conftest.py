"""pytest's doctests of tools/ (`make test`): the nbgrader plug-ins and the hub's spawner need
nbgrader and JupyterHub, which only `.venv-classroom` has (`make classroom-test` runs their tests)."""
import importlib.util

collect_ignore = ([] if importlib.util.find_spec("nbgrader") else ["nbgrader_grading.py", "nbgrader_exchange.py"]) \
    + ([] if importlib.util.find_spec("jupyterhub") else ["hub_spawner.py"])
