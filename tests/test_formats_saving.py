"""Saving: atomic (a temporary file in the same folder, then a rename), an existing file
keeps its permissions, a symbolic link keeps pointing at the file written. Every file bbn
writes (models, pictures, predictions) goes through ``bbn.io.formats.write_atomically``."""

from __future__ import annotations

import gzip
import os
import stat
import sys

import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.io.formats import write_atomically

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and links")


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _network() -> bbn.Network:
    net = bbn.Network("n")
    net.add_variable("A", ["a0", "a1"], table=[0.25, 0.75])
    return net


@pytest.mark.parametrize("name", ["model.bn", "model.bif.gz", "model.net"])
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o444])
def test_saving_over_a_file_keeps_its_permissions(tmp_path, name, mode):
    path = tmp_path / name
    path.write_text("old")
    os.chmod(path, mode)
    bbn.save(_network(), path)
    assert _mode(path) == mode
    assert bbn.load(path).cpt_array("A").tolist() == [0.25, 0.75]
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary file left


def test_a_new_file_gets_the_permissions_of_open(tmp_path):
    old = os.umask(0o027)
    try:
        bbn.save(_network(), tmp_path / "new.bn")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new.bn") == 0o640


def test_saving_to_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "model.bn"
    target.write_text("old")
    os.chmod(target, 0o600)
    link = tmp_path / "model.bn"
    link.symlink_to(target)
    bbn.save(_network(), link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert bbn.load(target).cpt_array("A").tolist() == [0.25, 0.75]
    assert _mode(target) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bn", "real"]
    assert [p.name for p in (tmp_path / "real").iterdir()] == ["model.bn"]


def test_a_chain_of_links_and_a_dangling_link_are_followed(tmp_path):
    target = tmp_path / "target.bif"
    middle = tmp_path / "middle.bif"
    link = tmp_path / "link.bif"
    middle.symlink_to(target.name)  # relative, and the target does not exist yet
    link.symlink_to(middle.name)
    bbn.save(_network(), link)
    assert link.is_symlink() and middle.is_symlink() and not target.is_symlink()
    assert bbn.load(target) == _network()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "model.bn"
    path.write_text("old")

    def refuse(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(bbn.BBNError, match="model.bn: cannot write: .*No space left"):
        bbn.save(_network(), path)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["model.bn"]


def test_write_atomically_writes_bytes_and_gzip(tmp_path):
    write_atomically(tmp_path / "a.bin", b"\x00\x01")
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\x01"
    write_atomically(tmp_path / "a.txt.gz", "é")
    assert gzip.decompress((tmp_path / "a.txt.gz").read_bytes()) == "é".encode()


def test_command_outputs_keep_permissions_and_links(tmp_path, capsys):
    model = tmp_path / "model.bif"
    bbn.save(_network(), model)
    converted = tmp_path / "converted.net"
    converted.write_text("old")
    os.chmod(converted, 0o600)
    assert main(["convert", str(model), str(converted)]) == 0
    assert _mode(converted) == 0o600 and bbn.load(converted) == _network()

    (tmp_path / "data.csv").write_text("A\na0\na1\n")
    predictions = tmp_path / "out" / "predictions.csv"
    predictions.parent.mkdir()
    predictions.write_text("old")
    os.chmod(predictions, 0o600)
    link = tmp_path / "predictions.csv"
    link.symlink_to(predictions)
    assert main(["classify", str(model), str(tmp_path / "data.csv"), "--target", "A",
                 "-o", str(link)]) == 0
    assert link.is_symlink() and _mode(predictions) == 0o600
    assert predictions.read_text().startswith("predicted,P(A=a0),P(A=a1)\n")

    picture = tmp_path / "model.dot"
    picture.write_text("old")
    os.chmod(picture, 0o600)
    assert main(["render", str(model), "-o", str(picture)]) == 0
    assert _mode(picture) == 0o600 and picture.read_text().startswith("digraph")
    capsys.readouterr()
