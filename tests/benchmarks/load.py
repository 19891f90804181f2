"""Workload 1: read every shared network from its (gunzipped) BIF file.

bbn: ``bbn.load(path)``; pyAgrum: ``gum.loadBN(path)``; pgmpy:
``BIFReader(path).get_model()`` — each library's own reader on the same plain file.
"""

from __future__ import annotations

from .harness import NA, Row, Section, Settings, measure_side_by_side
from .models import all_networks, plain_bif

TITLE = "load every shared network from BIF"


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("1", TITLE, ["bbn", "pyAgrum", "pgmpy"],
                      [("bbn", "pyAgrum"), ("bbn", "pgmpy")])
    readers = _readers()
    for name in networks or all_networks():
        section.add(_row(settings, name, readers))
    return section


def _row(settings: Settings, name: str, readers: dict) -> Row:
    path = str(plain_bif(name))
    row = Row("load", name)
    runs = {}
    for library, read in readers.items():
        if isinstance(read, NA):
            row.cells[library] = read
        else:
            runs[library] = lambda read=read: read(path)
    row.cells.update(measure_side_by_side(settings, runs))
    return row


def _readers() -> dict:
    readers: dict = {}
    try:
        import bbn

        readers["bbn"] = bbn.load
    except Exception as error:  # pragma: no cover - bbn itself always imports
        readers["bbn"] = NA(str(error))
    try:
        import pyagrum as gum

        readers["pyAgrum"] = gum.loadBN
    except ImportError as error:
        readers["pyAgrum"] = NA(f"pyagrum not installed ({error})")
    try:
        from pgmpy.readwrite import BIFReader

        readers["pgmpy"] = lambda path: BIFReader(path).get_model()
    except ImportError as error:
        readers["pgmpy"] = NA(f"pgmpy not installed ({error})")
    return readers
