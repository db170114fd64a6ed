"""Teaching-kit tools: build the student edition, the slides and the HTML site from notebooks/.

Run them with make (``make student``, ``make slides``, ``make site``) or directly, from the
repository's root: ``python -m tools.student_edition notebooks build/student``. They use only the
standard library, nbformat and nbconvert, and never change the notebooks in ``notebooks/``.
TEACHING.md explains how to use what they build.
"""
