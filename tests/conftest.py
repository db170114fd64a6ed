"""pytest's shared set-up for tests/. Being here, this file puts tests/ on ``sys.path``, so that every test
file, in whichever folder, imports the shared helpers as ``from helpers import ...``."""
