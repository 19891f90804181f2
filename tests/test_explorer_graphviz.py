"""The explorer needs Graphviz's ``dot`` to lay the network out, and says so at start-up:
``bbn serve`` exits 2 with the install line, ``bbn.serve`` and ``bbn.explore`` raise a
GraphvizMissingError (a BBNError) before binding a port — never a page that answers 503.
These tests hide ``dot`` from PATH, so they run with or without it."""

from __future__ import annotations

import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.apps.explorer.inline import _INLINE, explore
from bbn.apps.rendering import GraphvizMissingError

INSTALL = "needs Graphviz's 'dot' program, which is not on this machine: install Graphviz"


@pytest.fixture
def no_dot(monkeypatch):
    monkeypatch.setattr("bbn.apps.rendering.output.shutil.which", lambda name: None)


def test_bbn_serve_refuses_to_start_with_the_install_line(no_dot, capsys, chair_file):
    assert main(["serve", str(chair_file), "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == ""                                    # no "at http://..." line: not started
    assert err.startswith("bbn serve: the explorer (Graphviz lays the network out) " + INSTALL)
    assert "apt-get install graphviz" in err and "Traceback" not in err


def test_serve_and_explore_raise_a_bbn_error(no_dot, chair_file):
    net = bbn.load(chair_file)
    with pytest.raises(GraphvizMissingError, match="install Graphviz"):
        bbn.serve(net, port=0, block=False)
    with pytest.raises(bbn.BBNError, match="brew install graphviz"):
        explore(net)
    assert id(net) not in _INLINE                       # nothing half-started is kept
