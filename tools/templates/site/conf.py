"""Sphinx's configuration for the course's site (``make site``; tools/site.py runs Sphinx once per
edition with this folder as its configuration directory). MyST-NB reads the notebooks with their
stored outputs (nothing is executed); the book theme gives the navigation, the search and the
Binder launch button; ``_templates/language-switch.html`` links each page to its counterpart in
the other edition. tools/site.py passes the edition's settings with ``-D`` and ``-A``.
"""
project = "minigrad"
author = "the minigrad course"
copyright = "the minigrad course"
root_doc = "index"
language = "en"
extensions = ["myst_nb"]
nb_execution_mode = "off"            # the notebooks' stored outputs, as nbval checks them
myst_enable_extensions = ["dollarmath"]
exclude_patterns = ["_build", "zh", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]
html_theme = "sphinx_book_theme"
html_title = "minigrad"
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "article_header_end": ["language-switch.html", "article-header-buttons.html"],
    "use_download_button": False,
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
}

# The edition being built, from tools/site.py: its language, the language switch, the Binder
# button, and the words of MyST-NB's folded cells.
import json  # noqa: E402
import os  # noqa: E402

edition = json.loads(os.environ.get("MINIGRAD_SITE_EDITION", "{}"))
language = edition.get("language", language)
html_context = edition.get("context", {})
html_theme_options.update(edition.get("theme_options", {}))
nb_code_prompt_show = edition.get("show", "Show code cell {type}")
nb_code_prompt_hide = edition.get("hide", "Hide code cell {type}")
