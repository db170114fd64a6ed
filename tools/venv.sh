#!/usr/bin/env bash
# `make venv` (and every target that needs .venv): create .venv with $PYTHON and install minigrad
# with its course and test tools, at the versions pinned in constraints.txt.
#
#   PYTHON=python3.12 VENV=.venv PYTHON_GIVEN=1 GOAL=lab bash tools/venv.sh [ensure|check|python]
#
# ensure (the default): make .venv ready, or say why it cannot be; `check`: only say what `ensure`
# would do (exit 0: ready, 3: it would install, 1: it cannot); `python`: only check $PYTHON.
# PYTHON_GIVEN=1 means the learner named $PYTHON (PYTHON=... on the command line or in the
# environment): a .venv made with another interpreter is then made again with it. Without it, an
# existing .venv is kept, whatever `python3` now is.
# Written in bash, not Python: it has to explain a Python that does not run.
set -euo pipefail

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
GOAL=${GOAL:-venv}
PYTHON_GIVEN=${PYTHON_GIVEN:-}
CONSTRAINTS=${CONSTRAINTS:-constraints.txt}
STAMP=$VENV/.installed
MIN=3.10
ABOUT="about 110 packages, 420 MB (about 5 minutes measured on a busy 2-core machine)"

say() { echo "$@" >&2; }

# Interpreters on this machine that run and are new enough, best first: what to suggest instead.
working_pythons() {
    local candidate
    for candidate in python3.13 python3.12 python3.11 python3.10 python3; do
        if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            echo "$candidate"
        fi
    done
    if command -v pyenv >/dev/null; then
        local root; root=$(pyenv root 2>/dev/null) || return 0
        for candidate in "$root"/versions/3.1[0-9]*/bin/python3; do
            [ -x "$candidate" ] && "$candidate" -c '' 2>/dev/null && echo "$candidate"
        done
    fi
    return 0
}

suggest() {  # a command that works, for the message
    local first; first=$(working_pythons | head -n 1)
    if [ -n "$first" ]; then say "A Python that works here: make $GOAL PYTHON=$first"; else
        say "Install Python $MIN or newer (python.org, or your package manager), then run: make $GOAL PYTHON=python3.12"; fi
}

# pyenv's shim for a command that no active pyenv version provides: say which versions have it.
explain_pyenv_shim() {
    local name; name=$(basename "$PYTHON")
    local versions; versions=$(pyenv whence "$name" 2>/dev/null | tr '\n' ' ' || true)
    say "$PYTHON is pyenv's shim ($(command -v "$PYTHON")), and no Python version pyenv has active provides $name."
    if [ -n "$versions" ]; then
        local version=${versions%% *}
        say "pyenv has it in: ${versions% }. Run with that interpreter itself:"
        say "    make $GOAL PYTHON=$(pyenv root)/versions/$version/bin/$name"
        say "(or activate it first: pyenv shell $version)"
    else
        suggest
    fi
}

# Check $PYTHON; print "VERSION EXECUTABLE" of it.
check_python() {
    if ! command -v "$PYTHON" >/dev/null; then
        say "There is no $PYTHON program on this machine (minigrad needs Python >= $MIN)."
        suggest; return 1
    fi
    local out
    if ! out=$("$PYTHON" -c 'import os, sys; print("%d.%d.%d" % sys.version_info[:3], os.path.realpath(sys.executable))' 2>&1); then
        case "$(command -v "$PYTHON")" in
            */shims/*) explain_pyenv_shim ;;
            *) say "$PYTHON ($(command -v "$PYTHON")) does not run; it says:"; say "    ${out//$'\n'/$'\n'    }"; suggest ;;
        esac
        return 1
    fi
    local version=${out%% *}
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
        say "minigrad needs Python >= $MIN; $PYTHON is Python $version."
        suggest; return 1
    fi
    echo "$out"
}

# What .venv was made with: "VERSION EXECUTABLE", or nothing when its Python does not run.
venv_python() {
    "$VENV/bin/python" -c 'import os, sys; print("%d.%d.%d" % sys.version_info[:3], os.path.realpath(sys._base_executable))' 2>/dev/null || true
}

# Decide: prints "ready", "install" or "rebuild REASON" (and fails when $PYTHON cannot serve).
plan() {
    if [ ! -e "$VENV" ]; then echo "create"; return; fi
    local made; made=$(venv_python)
    if [ -z "$made" ]; then echo "rebuild $VENV's Python no longer runs (was its interpreter removed or upgraded?)"; return; fi
    if [ -n "$PYTHON_GIVEN" ]; then
        local wanted; wanted=$(check_python) || return 1
        if [ "$made" != "$wanted" ]; then
            echo "rebuild $VENV was made with Python ${made%% *} (${made#* }); PYTHON=$PYTHON is Python ${wanted%% *} (${wanted#* })"
            return
        fi
    fi
    if [ ! -e "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ] || { [ -e "$CONSTRAINTS" ] && [ "$CONSTRAINTS" -nt "$STAMP" ]; }; then
        echo "install"; return
    fi
    echo "ready"
}

install() {
    if [ ! -x "$VENV/bin/python" ]; then
        local found; found=$(check_python) || exit 1
        echo "Creating $VENV with $PYTHON (Python ${found%% *})"
        "$PYTHON" -m venv "$VENV" || { rm -rf "$VENV"
            say "Could not create a virtual environment. On Debian/Ubuntu: sudo apt-get install python3-venv"; exit 1; }
        echo "Installing minigrad and its tools into $VENV, at the versions of $CONSTRAINTS: $ABOUT"
    else
        echo "Updating $VENV to pyproject.toml and $CONSTRAINTS (changed since it was installed)"
    fi
    local pins=(); [ -e "$CONSTRAINTS" ] && pins=(-c "$CONSTRAINTS")
    "$VENV/bin/python" -m pip install --progress-bar off "${pins[@]}" -e '.[course,test]' | \
        awk '/^(Collecting|Processing) /{n++; sub(".*/", "", $2); printf "  %3d %s\n", n, $2; fflush()} /^Successfully installed/{print "  installed " NF - 2 " packages"}'
    touch "$STAMP"
}

case "${1:-ensure}" in
    python) check_python >/dev/null ;;
    check)
        decision=$(plan) || exit 1
        echo "$decision"
        [ "$decision" = ready ] || exit 3 ;;
    ensure)
        decision=$(plan) || exit 1
        case "$decision" in
            ready) ;;
            rebuild*)
                echo "${decision#rebuild }: making $VENV again with $PYTHON (your workspace/ is kept)."
                check_python >/dev/null || exit 1
                rm -rf "$VENV"; install ;;
            *) install ;;
        esac ;;
    *) say "usage: tools/venv.sh [ensure|check|python]"; exit 2 ;;
esac
