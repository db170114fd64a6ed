"""pytest's shared set-up for tests/. Being here, this file puts tests/ on ``sys.path``, so that every test
file, in whichever folder, imports the shared helpers as ``from helpers import ...``."""

import pytest  # noqa: E402

from helpers import builtins_return_no_unmarked_input  # noqa: E402

# The folders whose tests run every builtin operation (tests/opinfo replays PyTorch's OpInfo samples
# of all of them): there each test also checks a promise Function.apply relies on (see the helper).
_CHECKED_FOLDERS = ("ops", "opinfo")


@pytest.fixture(autouse=True)
def builtins_never_return_an_unmarked_input(request):
    if request.path.parent.name not in _CHECKED_FOLDERS or request.node.get_closest_marker("apply_shortcut"):
        yield   # the other tests exercise apply's no-grad shortcut, which a listener turns off
        return
    with builtins_return_no_unmarked_input():
        yield
