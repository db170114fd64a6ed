"""nbconvert's configuration for the lecture decks (``make slides``, ``make lecture``):

    python -m nbconvert --config tools/slides_config.py --output-dir build/slides notebooks/NN_*.ipynb

cuts each notebook into slides with ``tools.slides.LectureSlides`` and renders them with the
template ``tools/templates/lecture`` (reveal.js). Decks load reveal.js and MathJax from ``lib/``
beside them; other places are given on the command line (``--SlidesExporter.reveal_url_prefix=``,
``--SlidesExporter.mathjax_url=``). ``--to notebook --LectureSlides.live=True`` writes notebooks
with slide metadata instead, for live slides (RISE).
"""
from pathlib import Path

try:
    c = get_config()  # noqa: F821 (nbconvert's config loader defines it)
except NameError:     # imported as a module (pytest --doctest-modules)
    from traitlets.config import Config

    c = Config()
c.NbConvertApp.export_format = "slides"
c.SlidesExporter.extra_template_basedirs = [str(Path(__file__).resolve().parent / "templates")]
c.SlidesExporter.template_name = "lecture"
c.SlidesExporter.preprocessors = ["tools.slides.LectureSlides"]
c.SlidesExporter.exclude_input_prompt = True
c.SlidesExporter.exclude_output_prompt = True
c.SlidesExporter.reveal_url_prefix = "lib/reveal.js"
c.SlidesExporter.mathjax_url = "lib/mathjax/tex-chtml.js"
c.NotebookExporter.preprocessors = ["tools.slides.LectureSlides"]
c.SlidesExporter.reveal_theme = "white"   # its font ships with reveal.js ("simple" loads Google fonts)
