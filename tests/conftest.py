"""Fixtures shared by the test modules.

``shared``: the read-only material next to the repository (``../shared``: EXAMPLES.md,
networks/*.bif.gz, reference/, data/); tests that need it are skipped when it is absent.
Random networks for property tests live in ``tests/strategies.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


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
