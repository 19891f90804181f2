"""``bbn convert INPUT OUTPUT``: a model from one format to another (the output's
extension picks the format).

>>> import os, tempfile
>>> from bbn.apps.cli.main import main
>>> path = os.path.join(tempfile.mkdtemp(), "chair.bif")
>>> main(["convert", "models/chair.bn", path])
wrote ...chair.bif
0
"""

from __future__ import annotations

import argparse

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import read_model, refuse_overwriting
from bbn.io.formats import save


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="model file to read")
    parser.add_argument("output", help="file to write; its extension picks the format")


def run(args: argparse.Namespace) -> int:
    refuse_overwriting(args.output, input=args.input)
    save(read_model(args, args.input, dynamic="keep"), args.output)
    print(f"wrote {args.output}")
    return EXIT_OK


__all__ = ["add_arguments", "run"]
