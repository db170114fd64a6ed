# minigrad course. Start with `make lab` (learn) and `make test` (check everything);
# `make` alone lists every target.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules

PYTHON ?= python3
VENV ?= .venv
VENV_BIN := $(abspath $(VENV))/bin
# The versions every install uses (make lock refreshes them): .venv and .venv-fidelity from
# constraints.txt, .venv-classroom from constraints-classroom.txt (its Python is >= 3.11).
CONSTRAINTS := constraints.txt
CLASSROOM_CONSTRAINTS := constraints-classroom.txt
# tools/venv.sh creates or updates .venv; PYTHON named on the command line or in the environment
# makes it rebuild a .venv made with another interpreter.
VENV_SH = PYTHON='$(PYTHON)' VENV='$(VENV)' CONSTRAINTS='$(CONSTRAINTS)' GOAL='$(or $(firstword $(MAKECMDGOALS)),venv)' \
	PYTHON_GIVEN=$(if $(filter command line environment,$(origin PYTHON)),1) bash tools/venv.sh
PORT ?= 8888
LAB_ARGS ?= --ip 127.0.0.1 --no-browser
CELL_TIMEOUT ?= 600
# `make fidelity`: real PyTorch in its own virtual environment, never in .venv (make test stays torch-free).
FIDELITY_VENV ?= .venv-fidelity
FIDELITY_STAMP := $(FIDELITY_VENV)/.installed
TORCH_VERSION ?= 2.13.0
# PyTorch's own index of CPU-only wheels (PyPI's torch for Linux pulls about 20 nvidia CUDA packages,
# several GB). `make fidelity TORCH_INDEX=` installs torch from pip's configured indexes instead.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
# Extra pip arguments for installing torch.
TORCH_PIP_ARGS ?=
# Random programs the differential fuzzer runs (FUZZ_SEED= picks hypothesis's seed; empty: a random one).
FUZZ_EXAMPLES ?= 300
FUZZ_SEED ?= 0
# FUZZ_VIEWS_INPLACE=1 also generates in-place changes through views (x[0].mul_(2), y.view(-1).add_(1)).
FUZZ_VIEWS_INPLACE ?=

# Same hash order in every run, so printed sets and dicts match the stored outputs.
export PYTHONHASHSEED := 0
# Some ipykernel/debugpy versions print a "frozen modules" debugger warning on Python >= 3.11;
# this silences it (none appears with the versions pinned today, but a stray stderr fails nbval).
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# minigrad's doctor without importing minigrad (whose __init__ needs numpy), so it works before
# the virtual environment exists (`python -m minigrad doctor` needs .venv's Python).
DOCTOR := $(PYTHON) -c 'import runpy, sys; sys.exit(runpy.run_path("minigrad/doctor.py")["main"](sys.argv[1:]))'

IS_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo yes)
# Where make can install Chromium itself (root with apt-get), the browser test must run, not skip.
CAN_APT := $(if $(IS_ROOT),$(shell command -v apt-get >/dev/null && echo 1))
BUILD := build
# Lecturing (make slides, make lecture, make site) uses the course environment this machine
# already has: .venv, or a hub's .venv-classroom; with neither, `make venv` creates .venv.
COURSE_PYTHON = for v in $(VENV) $(CLASSROOM_VENV); do [ -x $$v/bin/python ] && { echo $$v/bin/python; exit; }; done; echo $(VENV)/bin/python
# The pins of that environment: .venv-classroom has its own (nbgrader needs Python >= 3.11).
COURSE_CONSTRAINTS = case "$$($(COURSE_PYTHON))" in $(CLASSROOM_VENV)/*) echo $(CLASSROOM_CONSTRAINTS);; *) echo $(CONSTRAINTS);; esac
TRANSLATIONS := zh
# reveal.js and MathJax for the decks, from npm (tools/reveal/package-lock.json); CDN=1 instead:
REVEAL := tools/reveal/node_modules
REVEAL_STAMP := $(REVEAL)/.installed
REVEAL_CDN := https://cdn.jsdelivr.net/npm/reveal.js@5.2.1
MATHJAX_CDN := https://cdn.jsdelivr.net/npm/mathjax@3.2.2/es5/tex-chtml.js
# LAB_TOKEN unset: Jupyter makes a random token. `make lab LAB_TOKEN=` turns it off.
ifneq ($(origin LAB_TOKEN),undefined)
TOKEN_ARG := --IdentityProvider.token='$(LAB_TOKEN)'
endif

.PHONY: help venv lock course-env lecture-env site-env dot doctor chromium lab lab-student lab-course update workspace test fidelity mutants execute bench student slides lecture site browser clean distclean

help: ## list the targets (the default)
	@echo "minigrad course: make TARGET"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-12s %s\n", $$1, $$2}'
	@echo "Variables: PYTHON=$(PYTHON) PORT=$(PORT) LAB_ARGS='$(LAB_ARGS)' LAB_TOKEN=<token, empty for none> CELL_TIMEOUT=$(CELL_TIMEOUT)"
	@echo "           CDN=1 (make slides: decks load reveal.js from a CDN instead of build/reveal.js)"
	@echo "           BINDER_REPO=owner/name (make site: the GitHub repository its Binder links open; default: origin's)"
	@echo "           FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_SEED=$(FUZZ_SEED) FUZZ_VIEWS_INPLACE=1 TORCH_VERSION=$(TORCH_VERSION)"
	@echo "           TORCH_INDEX=$(TORCH_INDEX) (make fidelity: where torch comes from; empty: pip's own indexes)"
	@echo "           OPS='add nn.functional.relu' MODULES='nn.Linear' (make fidelity: regenerate only these OpInfo or ModuleInfo entries)"

venv: ## create .venv and install minigrad with its course and test tools (PYTHON=python3.12 rebuilds it with that Python)
	@$(VENV_SH) ensure

lock: venv ## refresh the pinned versions in constraints.txt and constraints-classroom.txt (uv, from PyPI; then commit them)
	$(VENV_BIN)/python -m pip install -q $(if $(wildcard $(CONSTRAINTS)),-c $(CONSTRAINTS)) uv
	@mkdir -p $(BUILD)
	@header="# The versions make installs (tools/venv.sh, make fidelity, make classroom-venv). Made by \`make lock\`\n# with uv pip compile from pyproject.toml; run it again to take newer releases, then make test."; \
	set -x; printf 'torch==$(TORCH_VERSION)\nexpecttest\nuv\n' | $(VENV_BIN)/uv pip compile -q pyproject.toml - --extra course --extra test --extra lecture --extra site \
		--universal --python-version 3.10 --no-emit-package torch --no-annotate --no-header -o $(BUILD)/constraints.txt; \
	printf 'uv\n' | $(VENV_BIN)/uv pip compile -q pyproject.toml - --extra course --extra test --extra lecture --extra site --extra classroom \
		--override classroom/uv-overrides.txt --universal --python-version 3.11 --no-annotate --no-header -o $(BUILD)/constraints-classroom.txt; \
	{ set +x; } 2>/dev/null; \
	{ echo -e "$$header\n# PyTorch's CUDA packages are left out: make fidelity installs the CPU build."; \
		grep -v -E '^(nvidia-|triton==)' $(BUILD)/constraints.txt; } > $(CONSTRAINTS); \
	{ echo -e "$$header\n# For .venv-classroom, whose nbgrader needs Python >= 3.11."; cat $(BUILD)/constraints-classroom.txt; } > $(CLASSROOM_CONSTRAINTS); \
	echo "Wrote $(CONSTRAINTS) ($$(grep -c '==' $(CONSTRAINTS)) pins) and $(CLASSROOM_CONSTRAINTS) ($$(grep -c '==' $(CLASSROOM_CONSTRAINTS)) pins)"

course-env: ## the course environment for make slides, lecture and site: .venv or .venv-classroom if either exists, else make venv
	@[ -x $(VENV)/bin/python ] || [ -x $(CLASSROOM_VENV)/bin/python ] || $(MAKE) --no-print-directory venv

lecture-env: course-env ## install jupyterlab-rise (live slides) into the course environment, if it is missing
	@py=$$($(COURSE_PYTHON)); $$py -c 'import jupyterlab_rise' 2>/dev/null || { \
		echo "Installing jupyterlab-rise into $$(dirname $$(dirname $$py)) (about 16 MB to download, 60 MB on disk)"; \
		$$py -m pip install -q -c $$($(COURSE_CONSTRAINTS)) -e '.[lecture]'; }

site-env: course-env ## install Sphinx, MyST-NB and the book theme (make site) into the course environment, if missing
	@py=$$($(COURSE_PYTHON)); $$py -c 'import myst_nb, sphinx_book_theme' 2>/dev/null || { \
		echo "Installing Sphinx, MyST-NB and sphinx-book-theme into $$(dirname $$(dirname $$py)) (27 packages, about 80 MB)"; \
		$$py -m pip install -q -c $$($(COURSE_CONSTRAINTS)) -e '.[site]'; }

$(REVEAL_STAMP): tools/reveal/package.json tools/reveal/package-lock.json
	@command -v npm >/dev/null || { echo "make slides copies reveal.js from npm: install Node.js and npm (Debian: apt-get install npm)," \
		"or run make slides CDN=1 for decks that load it from a CDN" >&2; exit 1; }
	@echo "Installing reveal.js and MathJax into $(REVEAL) with npm ci (about 8 MB to download, 30 MB on disk)"
	cd tools/reveal && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

dot: ## check for Graphviz's dot program (as root on Debian/Ubuntu: install it with apt-get)
	@if ! command -v dot >/dev/null && [ -n "$(IS_ROOT)" ] && command -v apt-get >/dev/null; then \
		echo "Graphviz's dot program is missing: installing it with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends graphviz >/dev/null; \
	fi
	@report=$$($(DOCTOR) --dot-only) || { echo "$$report" >&2; exit 1; }

doctor: ## check this machine for the course: Python, numpy, Graphviz's dot, matplotlib, JupyterLab (before set-up: what `make lab` will do)
	@if [ -e $(VENV)/.installed ] && [ -x $(VENV)/bin/python ]; then $(VENV)/bin/python -m minigrad doctor; else \
		$(VENV_SH) python && $(DOCTOR) --before-setup --venv $(VENV) --python '$(PYTHON)' $(if $(CAN_APT),--can-apt); fi

chromium: ## check for Chromium and a CJK font, for `make browser` (as root on Debian/Ubuntu: install them with apt-get)
	@missing=""; command -v chromium >/dev/null || missing="chromium"; \
	fc-list :lang=zh 2>/dev/null | grep -q . || missing="$${missing:+$$missing }fonts-noto-cjk"; \
	if [ -n "$$missing" ] && [ -n "$(CAN_APT)" ]; then \
		log=$$(mktemp); apt-get update -qq >"$$log" 2>&1 || { cat "$$log" >&2; echo "apt-get update failed: the browser test will fail" >&2; exit 0; }; \
		packages=$$(LC_ALL=C apt-get -s install --no-install-recommends $$missing 2>/dev/null | awk '/^Inst /{print $$2}'); \
		size=$$(apt-cache show --no-all-versions $$packages 2>/dev/null | awk -v n="$$(echo $$packages | wc -w)" \
			'/^Installed-Size:/ {disk += $$2} /^Size:/ {download += $$2} END {printf "%d packages, %.0f MB to download, %.0f MB on disk", n, download / 1e6, disk * 1024 / 1e6}'); \
		echo "Installing Debian's $$missing with apt-get for the browser tests ($$size, as apt counts;" \
			"a minute or two; fonts-noto-cjk draws Chinese text)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >"$$log" 2>&1 \
			|| { cat "$$log" >&2; echo "apt-get could not install $$missing: the browser test will fail" >&2; }; \
		rm -f "$$log"; \
	fi
	@command -v chromium >/dev/null || echo "No chromium program: tests/test_browser.py will be skipped (on Debian: apt-get install chromium)"
	@fc-list :lang=zh 2>/dev/null | grep -q . || echo "No CJK font: Chinese text shows as boxes in the browser (on Debian: apt-get install fonts-noto-cjk)"

lab: venv dot ## open your workspace (your copy of the notebooks, workspace/notebooks/) in JupyterLab; it holds the terminal until Ctrl-C (PORT=8888)
	$(VENV_BIN)/python -m tools.lab --port $(PORT) -- $(LAB_ARGS) $(TOKEN_ARG)

lab-student: venv dot ## build the student edition, then open your copy of it (workspace/student/) in JupyterLab, like make lab
	$(VENV_BIN)/python -m tools.lab --student --port $(PORT) -- $(LAB_ARGS) $(TOKEN_ARG)

lab-course: venv dot ## for the course's authors: open the course's own notebooks/ in JupyterLab (saving changes them)
	$(VENV_BIN)/python -m tools.lab notebooks --port $(PORT) -- $(LAB_ARGS) $(TOKEN_ARG)

workspace: venv ## bring the course's notebooks into your workspace/ (as make lab does), without starting JupyterLab
	$(VENV_BIN)/python -m tools.workspace sync all

update: venv ## update the course (git pull), then bring its changes into your workspace/, keeping your work
	$(VENV_BIN)/python -m tools.workspace pull
	@$(MAKE) --no-print-directory venv
	$(VENV_BIN)/python -m tools.workspace sync all

test: venv dot ## check your set-up and the course: the unit tests, then every notebook's stored outputs with nbval (notebooks/ and notebooks/zh/); ends with one plain line
	@$(VENV_BIN)/python -m tools.check

fidelity: $(FIDELITY_STAMP) ## compare minigrad with real PyTorch (in .venv-fidelity): regenerate the API inventory and the OpInfo and ModuleInfo samples, replay them, tests/fidelity/ and the fuzzer
	$(FIDELITY_VENV)/bin/python -W ignore -m tools.inventory names
	$(FIDELITY_VENV)/bin/python -m tools.inventory write
	$(if $(MODULES),,$(FIDELITY_VENV)/bin/python -W ignore tests/fidelity/opinfo_generate.py $(OPS))
	$(if $(OPS),,$(FIDELITY_VENV)/bin/python -W ignore tests/fidelity/moduleinfo_generate.py $(MODULES))
	$(FIDELITY_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/opinfo/
	MINIGRAD_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) MINIGRAD_FUZZ_VIEWS_INPLACE=$(FUZZ_VIEWS_INPLACE) $(FIDELITY_VENV)/bin/python -m pytest -q -p no:cacheprovider \
		$(if $(FUZZ_SEED),--hypothesis-seed=$(FUZZ_SEED)) tests/fidelity/
	@$(MAKE) --no-print-directory mutants

mutants: venv ## mutation-test every exercise checker: each mutant of a reference answer must be rejected, each right rewrite accepted; prints the table (2-3 minutes; make test runs a sample)
	$(VENV_BIN)/python -m tools.mutants

$(FIDELITY_STAMP): pyproject.toml $(CONSTRAINTS)
	@test -x $(FIDELITY_VENV)/bin/python || { echo "Creating $(FIDELITY_VENV) with $(PYTHON)"; $(PYTHON) -m venv $(FIDELITY_VENV) || { \
		rm -rf $(FIDELITY_VENV); echo "Could not create a virtual environment. On Debian/Ubuntu: sudo apt-get install python3-venv" >&2; exit 1; }; }
	@index="$(TORCH_INDEX)"; host=$$(echo "$$index" | sed -E 's#^[a-z]+://([^/:]+).*#\1#'); \
	if [ -n "$$index" ] && ! $(FIDELITY_VENV)/bin/python -c 'import socket, sys; socket.getaddrinfo(sys.argv[1], 443)' "$$host" 2>/dev/null; then \
		echo "$$host is unreachable from here: installing torch from pip's configured indexes instead (TORCH_INDEX= does this)"; index=""; fi; \
	echo "Installing torch==$(TORCH_VERSION) (CPU) into $(FIDELITY_VENV)$${index:+ from $$index}: about 190 MB to download, 1 GB installed"; \
	set -x; $(FIDELITY_VENV)/bin/python -m pip install -q $${index:+--index-url $$index} -c $(CONSTRAINTS) $(TORCH_PIP_ARGS) torch==$(TORCH_VERSION)
	@! $(FIDELITY_VENV)/bin/python -m pip list 2>/dev/null | grep -i '^nvidia-' || { \
		echo "pip installed PyTorch's CUDA build (the nvidia-* packages above, several GB): make fidelity needs only the CPU build." >&2; \
		echo "Remove $(FIDELITY_VENV) and run again with TORCH_INDEX=https://download.pytorch.org/whl/cpu reachable." >&2; exit 1; }
	$(FIDELITY_VENV)/bin/python -m pip install -q -c $(CONSTRAINTS) -e '.[test]' expecttest
	@touch $@

execute: venv dot ## re-run every notebook in place (English, then the Chinese edition rebuilt from its catalogs); FRESH=1 also stores outputs nbval ignores
	@rm -rf $(BUILD)/before-execute && mkdir -p $(BUILD) && cp -R notebooks $(BUILD)/before-execute
	@shopt -s nullglob; cd notebooks; LC_ALL=C; for nb in *.ipynb; do \
		echo "executing notebooks/$$nb"; \
		$(VENV_BIN)/jupyter nbconvert --log-level=WARN --to notebook --execute --inplace \
			--ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=$(CELL_TIMEOUT) \
			--ExecutePreprocessor.record_timing=False "$$nb"; \
	done
	$(VENV_BIN)/python -m tools.translate build
	$(VENV_BIN)/python -m tools.translate execute
	$(VENV_BIN)/python -m tools.notebook_metadata notebooks $(if $(filter 1,$(FRESH)),,--keep-outputs-from $(BUILD)/before-execute)

bench: venv ## run every bench/*.py script
	@shopt -s nullglob; scripts=(bench/[!_]*.py); \
	if [ $${#scripts[@]} -eq 0 ]; then echo "no bench/*.py scripts yet"; exit 0; fi; \
	for script in "$${scripts[@]}"; do echo "== $$script"; $(VENV_BIN)/python "$$script"; done

student: venv ## build the student edition in build/student/ (and build/student/zh/): solutions become folded hints
	$(VENV_BIN)/python -m tools.student_edition notebooks $(BUILD)/student

slides: course-env $(if $(filter 1,$(CDN)),,$(REVEAL_STAMP)) ## build a deck per notebook and language in build/slides/ for a lecture hall, working offline (CDN=1: reveal.js from a CDN)
	@rm -rf $(BUILD)/slides && mkdir -p $(BUILD)/slides/lib/reveal.js $(BUILD)/slides/lib/mathjax/output/chtml/fonts
	@if [ "$(CDN)" != 1 ]; then cp -R $(REVEAL)/reveal.js/dist $(REVEAL)/reveal.js/plugin $(BUILD)/slides/lib/reveal.js/ && \
		cp $(REVEAL)/mathjax/es5/tex-chtml.js $(BUILD)/slides/lib/mathjax/ && \
		cp -R $(REVEAL)/mathjax/es5/output/chtml/fonts/woff-v2 $(BUILD)/slides/lib/mathjax/output/chtml/fonts/; fi
	@py=$$($(COURSE_PYTHON)); start=$$SECONDS; for edition in . $(TRANSLATIONS); do \
		lib=$$([ $$edition = . ] && echo lib || echo ../lib); \
		urls="--SlidesExporter.reveal_url_prefix=$$lib/reveal.js --SlidesExporter.mathjax_url=$$lib/mathjax/tex-chtml.js"; \
		[ "$(CDN)" != 1 ] || urls="--SlidesExporter.reveal_url_prefix=$(REVEAL_CDN) --SlidesExporter.mathjax_url=$(MATHJAX_CDN)"; \
		$$py -m nbconvert --config tools/slides_config.py $$urls --output-dir $(BUILD)/slides/$$edition notebooks/$$edition/[0-9][0-9]_*.ipynb \
			2>&1 | grep -v -e '^\[NbConvertApp\] Writing' -e 'Alternative text' || true; \
	done; echo "Slides: build/slides/NN_name.slides.html (Chinese: build/slides/zh/), in $$((SECONDS - start)) s; keys in TEACHING.md"

site: site-env ## build the course as a web site in build/site/, both editions (Sphinx, MyST-NB, the book theme)
	@start=$$SECONDS; $$($(COURSE_PYTHON)) -m tools.site notebooks $(BUILD)/site $(if $(BINDER_REPO),--binder-repo $(BINDER_REPO)); \
		echo "::: make site took $$((SECONDS - start)) s"

lecture: lecture-env ## live slides: JupyterLab with RISE on copies of the notebooks, cut as make slides cuts them (build/lecture/)
	@py=$$($(COURSE_PYTHON)); for edition in . $(TRANSLATIONS); do \
		$$py -m nbconvert --config tools/slides_config.py --to notebook --LectureSlides.live=True \
			--output-dir $(BUILD)/lecture/$$edition notebooks/$$edition/[0-9][0-9]_*.ipynb 2>&1 | grep -v -e '^\[NbConvertApp\] Writing' || true; \
		cp tools/templates/lecture/static/rise.css $(BUILD)/lecture/$$edition/; \
	done
	@echo "Open a notebook, press Alt+R (or the RISE button): Space moves on, Ctrl+Enter runs the selected cell (TEACHING.md)."
	$$($(COURSE_PYTHON)) -m tools.lab $(BUILD)/lecture --port $(PORT) -- $(LAB_ARGS) $(TOKEN_ARG)

browser: venv chromium ## build the slides and the site, then check in headless Chromium what a learner and a lecture hall see: JupyterLab, the site, every deck, live slides (build/screenshots/)
	@$(MAKE) --no-print-directory lecture-env slides site
	@start=$$SECONDS; set -x; MINIGRAD_REQUIRE_BROWSER=$(CAN_APT) $(VENV_BIN)/python -m pytest -v -p no:cacheprovider \
		--durations=5 tests/test_browser.py tests/test_workspace_browser.py; { set +x; } 2>/dev/null; echo "::: browser tests took $$((SECONDS - start)) s"

# --- The classroom: nbgrader assignments and the class's JupyterHub (README.md, "Teaching a class") ---
# Its own virtual environment (JupyterHub, nbgrader, nbgitpuller and the course), never .venv:
# `make lab` and `make test` stay without them. uv (from PyPI, into that venv) installs the ~110
# packages: pip took 4-7 minutes on the project's machine, uv about one. The proxy comes from npm
# into classroom/node_modules.
CLASSROOM_VENV ?= .venv-classroom
CLASSROOM_STAMP := $(CLASSROOM_VENV)/.installed
# The teacher's course folder: gradebook, submissions, grades. Outside the checkout, which every
# account on the hub's machine can read, and made readable by its owner only (mode 0700).
CLASSROOM_DIR ?= $(HOME)/minigrad-course
HUB_PROXY := classroom/node_modules/.bin/configurable-http-proxy
# The exchange, through which assignments and submissions pass: every account writes it.
NBGRADER_EXCHANGE ?= /srv/nbgrader/exchange
# Students' servers run .venv-classroom's Python as the students' own accounts. As root, make
# checks with the account `nobody` that other accounts can run $(PYTHON) (pyenv's Python under
# /root, for one, they cannot) and then uses Debian's /usr/bin/python3 instead.
STUDENT_PYTHON = $(shell p=$$($(PYTHON) -c 'import sys; print(sys.executable)' 2>/dev/null); \
	if [ -n "$(IS_ROOT)" ] && [ -n "$$p" ] && command -v runuser >/dev/null && ! runuser -u nobody -- "$$p" -c '' 2>/dev/null \
		&& runuser -u nobody -- /usr/bin/python3 -c '' 2>/dev/null; then echo /usr/bin/python3; else echo $(PYTHON); fi)

.PHONY: classroom classroom-venv hub classroom-test student-branch

classroom: $(CLASSROOM_STAMP) ## prepare the nbgrader course folder ~/minigrad-course (CLASSROOM_DIR=...): an assignment per notebook, both languages
	@if [ -d classroom/course ]; then echo "Warning: classroom/course/ (an earlier default) is inside the checkout, which" \
		"every account can read: move it with mv classroom/course $(CLASSROOM_DIR) (or delete it)" >&2; fi
	$(CLASSROOM_VENV)/bin/python -m tools.nbgrader_course notebooks $(CLASSROOM_DIR)
	@echo "nbgrader's commands: . $(abspath $(CLASSROOM_VENV))/bin/activate && cd $(CLASSROOM_DIR) && nbgrader generate_assignment 00_start_here"

classroom-venv: $(CLASSROOM_STAMP) ## only create .venv-classroom: JupyterHub, nbgrader, nbgitpuller and the course (Python >= 3.11)
	@:

$(CLASSROOM_STAMP): pyproject.toml classroom/uv-overrides.txt $(CLASSROOM_CONSTRAINTS)
	@python="$(STUDENT_PYTHON)"; if [ "$$python" != "$(PYTHON)" ] && [ ! -x $(CLASSROOM_VENV)/bin/python ]; then \
		echo "Other accounts cannot run $(PYTHON) ($$($(PYTHON) -c 'import sys; print(sys.executable)')), and students' servers" \
			"will run as their own accounts: creating $(CLASSROOM_VENV) with $$python instead"; fi; \
	$$python -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
		echo "The classroom needs Python >= 3.11 (nbgrader 0.9); $$python is $$($$python --version 2>&1)." >&2; \
		echo "Run e.g.: make $(or $(MAKECMDGOALS),classroom-venv) PYTHON=python3.12 (a Python every account can run, not one under /root)" >&2; exit 1; }; \
	test -x $(CLASSROOM_VENV)/bin/python || { echo "Creating $(CLASSROOM_VENV) with $$python"; $$python -m venv $(CLASSROOM_VENV) || { \
		rm -rf $(CLASSROOM_VENV); echo "Could not create a virtual environment. On Debian/Ubuntu: sudo apt-get install python3-venv" >&2; exit 1; }; }
	@echo "Installing minigrad, JupyterHub, nbgrader and nbgitpuller into $(CLASSROOM_VENV) (about 560 MB; with uv about a minute)"
	$(CLASSROOM_VENV)/bin/python -m pip install -q -c $(CLASSROOM_CONSTRAINTS) uv
	$(CLASSROOM_VENV)/bin/uv pip install -q --python $(CLASSROOM_VENV)/bin/python -c $(CLASSROOM_CONSTRAINTS) --override classroom/uv-overrides.txt \
		-e '.[course,test,classroom]'
	@$(CLASSROOM_VENV)/bin/python -m tools.classroom check-access --venv $(CLASSROOM_VENV) || \
		echo "Warning: the hub's students could not use $(CLASSROOM_VENV) (above); make hub checks this again." >&2
	@touch $@

student-branch: $(CLASSROOM_STAMP) ## commit the student edition of HEAD's notebooks to the branch `student`, for nbgitpuller links (README: "nbgitpuller links")
	$(CLASSROOM_VENV)/bin/python -m tools.classroom student-branch

$(HUB_PROXY): classroom/package.json classroom/package-lock.json
	@if ! command -v npm >/dev/null && [ -n "$(CAN_APT)" ]; then \
		echo "npm is missing: installing Debian's nodejs and npm with apt-get (for JupyterHub's proxy)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; \
	fi
	@command -v npm >/dev/null || { echo "JupyterHub's proxy needs Node.js and npm (on Debian: apt-get install nodejs npm)" >&2; exit 1; }
	@echo "Installing configurable-http-proxy into classroom/node_modules with npm ci (about 9 MB)"
	cd classroom && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

hub: $(CLASSROOM_STAMP) $(HUB_PROXY) dot ## start the class's JupyterHub on port 8000, as root (classroom/jupyterhub_config.py); Ctrl-C stops it
	@[ -n "$(IS_ROOT)" ] || { echo "make hub runs as root: the hub starts each student's server as the student's own account." >&2; exit 1; }
	@$(CLASSROOM_VENV)/bin/python -m tools.classroom check-access --venv $(CLASSROOM_VENV)
	@if [ ! -d $(NBGRADER_EXCHANGE) ]; then echo "Creating nbgrader's exchange $(NBGRADER_EXCHANGE) (mode 1777: every account writes it)"; \
		mkdir -p $(NBGRADER_EXCHANGE) && chmod 1777 $(NBGRADER_EXCHANGE); fi
	NBGRADER_EXCHANGE=$(NBGRADER_EXCHANGE) PATH="$(abspath $(CLASSROOM_VENV))/bin:$$PATH" $(CLASSROOM_VENV)/bin/jupyterhub -f classroom/jupyterhub_config.py

classroom-test: $(CLASSROOM_STAMP) $(HUB_PROXY) dot ## a class end to end on 127.0.0.1: hub, real accounts as root, nbgitpuller, notebook 00, nbgrader grading, the red team (10 to 28 minutes from a fresh clone on a shared 2-core machine)
	@start=$$SECONDS; set -x; MINIGRAD_REQUIRE_CLASSROOM=1 $(CLASSROOM_VENV)/bin/python -m pytest -q -rs -p no:cacheprovider \
		--durations=5 tests/test_classroom_grading.py tests/test_classroom.py; { set +x; } 2>/dev/null; echo "::: classroom test took $$((SECONDS - start)) s"

clean: ## remove build artefacts and caches (keeps .venv)
	rm -rf build dist *.egg-info .pytest_cache .hypothesis
	find . \( -path ./.git -o -path ./$(VENV) -o -path ./$(FIDELITY_VENV) -o -path ./$(CLASSROOM_VENV) -o -path ./classroom/node_modules -o -path ./workspace \) -prune -o \
		\( -name __pycache__ -o -name .ipynb_checkpoints -o -name .pytest_cache \) -type d -print0 | xargs -0 rm -rf

distclean: clean ## also remove the virtual environments .venv, .venv-fidelity, .venv-classroom and classroom/node_modules (never your workspace/)
	rm -rf $(VENV) $(FIDELITY_VENV) $(CLASSROOM_VENV) classroom/node_modules
	@if [ -d workspace ]; then echo "Kept workspace/: your notebooks. To start the course over, delete it yourself (rm -rf workspace)."; fi
