"""Teaching-kit tools: build the student edition, the slides and the site from notebooks/.

Run them with make (``make student``, ``make slides``, ``make lecture``, ``make site``) or
directly, from the repository's root: ``python -m tools.student_edition notebooks build/student``.
The slides are nbconvert's reveal.js exporter with ``tools.slides`` and ``tools/templates/lecture``;
the site is Sphinx with MyST-NB, configured in ``tools/templates/site``. They never change the
notebooks in ``notebooks/``. TEACHING.md explains how to use what they build.
"""
