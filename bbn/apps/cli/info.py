"""``bbn info MODEL``: the variables, their states and parents (or, for a Markov network,
how many factors hold each), and the parameter counts.

>>> from bbn.apps.cli.main import main
>>> main(["info", "models/chair.bn"])
network 'Back ache': 5 variables, 4 arcs
...
0
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_model_argument, read_model
from bbn.model.markov import MarkovNetwork
from bbn.model.network import Network


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)


def run(args: argparse.Namespace) -> int:
    net = read_model(args, dynamic="keep")
    if isinstance(net, MarkovNetwork):
        return _markov_info(net)
    if not isinstance(net, Network):  # a dynamic network: its two slices
        dynamic = net
        net = net.slices()
        last = len(net.variables) // len(dynamic.variables) - 1
        print(f"dynamic network {net.name!r}: {len(dynamic.variables)} variables a slice; "
              f"slices 0 {'and' if last == 1 else 'to'} {last}:")
    print(f"network {net.name!r}: {len(net.variables)} variables, "
          f"{len(net.arcs())} arcs")
    rows = [("variable", "states", "parents")]
    for v in net.variables:
        rows.append((v, ", ".join(net.states(v)) or "gaussian", ", ".join(net.parents(v)) or "-"))
    _print_table(rows)
    gaussians = [v for v in net.variables if net.is_gaussian(v)]
    for v in gaussians:  # every Gaussian's parameters: its regression per configuration
        if net.has_cpt(v):
            print(f"{v} | {', '.join(net.parents(v))}:" if net.parents(v) else f"{v}:")
            for line in net.gaussian_text(v):
                print(f"  {line}")
    discrete = len(net.variables) - len(gaussians)
    if not gaussians:
        print(f"free parameters: {net.free_parameters()} "
              f"(the full joint table needs {net.joint_parameters()})")
    elif discrete:
        print(f"free parameters: {net.free_parameters()} (a full joint table over the {discrete} "
              f"discrete variable{'s' if discrete > 1 else ''} needs {net.joint_parameters()})")
    else:
        print(f"free parameters: {net.free_parameters()}")
    if not net.is_complete:
        missing = [v for v in net.variables if not net.has_cpt(v)]
        print(f"structure only: no table for {', '.join(missing)}")
    return EXIT_OK


def _markov_info(net: MarkovNetwork) -> int:
    print(f"Markov network {net.name!r}: {len(net.variables)} variables, "
          f"{len(net.factors)} factors")
    rows = [("variable", "states", "factors")]
    held: dict[str, int] = dict.fromkeys(net.variables, 0)
    for factor in net.factors:
        for v in factor.variables:
            held[v] += 1
    for v in net.variables:
        rows.append((v, ", ".join(net.states(v)), str(held[v])))
    _print_table(rows)
    print(f"entries: {sum(f.values.size for f in net.factors)} in the factors")
    return EXIT_OK


def _print_table(rows: Sequence[tuple[str, str, str]]) -> None:
    """The rows in left-aligned columns, indented by two spaces."""
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        print("  " + "   ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


__all__ = ["add_arguments", "run"]
