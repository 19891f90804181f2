"""Fixtures shared by the test modules.

``shared``: the read-only material next to the repository (``../shared``: EXAMPLES.md,
networks/*.bif.gz, reference/, data/); tests that need it are skipped when it is absent.
``models`` / ``chair_file``: the shipped models. ``chair``: the back-ache network built
through the Python API, new for each test. ``memory_limit``: sets bbn's inference memory
limit for one test.

Support modules: ``example_networks.py`` (networks built in Python), ``strategies.py``
(random networks and evidence for property tests), ``brute_force.py`` (answers read off
the full joint table).

Running the tests writes nothing into the project: hypothesis keeps its example
database and caches in the system's temporary folder (``bbn-hypothesis``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from example_networks import chair_network
from hypothesis.configuration import set_hypothesis_home_dir

import bbn
from bbn.engines.exact import get_memory_limit, set_memory_limit

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "bbn-hypothesis")

# the tests were written for a memory limit of 1 GiB, whatever the machine has (the
# default is half the memory available: tests/test_memory_default.py); children inherit it
os.environ["BBN_MEMORY_LIMIT"] = "1GiB"
set_memory_limit(1 << 30)



@pytest.fixture(scope="session")
def shared() -> Path:
    """The path of ``../shared``; skips the test when it is absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared is absent")
    return SHARED


@pytest.fixture(scope="session")
def models() -> Path:
    """The path of the models shipped in ``models/``."""
    return ROOT / "models"


@pytest.fixture(scope="session")
def chair_file(models) -> Path:
    """``models/chair.bn``: the back-ache network of EXAMPLES.md §1."""
    return models / "chair.bn"


@pytest.fixture
def chair() -> bbn.Network:
    """The back-ache network of EXAMPLES.md §1, built through the Python API."""
    return chair_network()


@pytest.fixture
def memory_limit():
    """Yield set_memory_limit and restore the original limit afterwards."""
    original = get_memory_limit()
    yield set_memory_limit
    set_memory_limit(original)
