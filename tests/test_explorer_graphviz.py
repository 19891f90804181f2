"""The explorer without Graphviz's ``dot``: the server sends each box's size and the arcs,
and the page lays the network out itself with the vendored dagre (MIT, its licence beside
it). ``bbn serve``, ``bbn.serve`` and ``bbn.explore`` start either way. These tests hide
``dot`` from PATH, so they run with or without it; the page's own drawing is checked in a
real browser in test_explorer_browser.py."""

from __future__ import annotations

import json
import urllib.request
from importlib import resources

import pytest

import bbn
from bbn.apps.explorer.app import Explorer
from bbn.apps.rendering.layout import Geometry


@pytest.fixture
def no_dot(monkeypatch):
    monkeypatch.setattr("bbn.apps.rendering.output.shutil.which", lambda name: None)


def _get(url: str) -> tuple[bytes, str]:
    with urllib.request.urlopen(url) as reply:
        return reply.read(), reply.headers["Content-Type"]


def test_without_dot_the_model_carries_the_sizes_the_page_lays_out(no_dot, chair_file):
    net = bbn.load(chair_file)
    layout = Explorer(net).model()["layout"]
    assert layout["engine"] == "page" and "width" not in layout   # no coordinates
    for v in net.variables:                                        # C: a header, 2 rows
        width, height = Geometry().size(v, list(net.states(v)))
        assert layout["nodes"][v] == {"width": width, "height": height}
    assert layout["nodes"]["C"]["height"] == 20 + 2 * 15 + 2 * 4
    assert sorted((a["tail"], a["head"]) for a in layout["arcs"]) == sorted(
        (p, v) for v in net.variables for p in net.parents(v))
    assert layout["geometry"]["row"] == 15.0


def test_serve_starts_without_dot_and_serves_dagre_with_its_licence(no_dot, chair_file):
    with bbn.serve(bbn.load(chair_file), port=0, block=False) as server:
        page, _ = _get(server.url)
        assert b'<script src="dagre.min.js" defer></script>' in page
        script, kind = _get(server.url + "dagre.min.js")
        assert kind.startswith("text/javascript") and b"var dagre=" in script[:200]
        model, _ = _get(server.url + "api/model")
        assert json.loads(model)["layout"]["engine"] == "page"
        answer, _ = _get(server.url + "api/posteriors?A=T")
        assert round(json.loads(answer)["posteriors"]["C"]["T"], 4) == 0.8867
    licence = resources.files("bbn.apps.explorer").joinpath("static", "dagre.LICENSE")
    assert "Permission is hereby granted, free of charge" in licence.read_text()
    assert "Copyright (c) 2012-2014 Chris Pettitt" in licence.read_text()
