"""``--unroll T``: a dynamic network asked, explained and sampled as the ordinary network of its
first T slices (:meth:`bbn.DynamicNetwork.unroll`), whose variables are named ``X[t]``
(t = 0, 1, …, T − 1).

``bbn query`` needs no ``--unroll`` when the question names its slices: the network is
unrolled to the last slice named (``P(Rain[2] | Umbrella[0]=T)``: three slices), and no
later slice changes a posterior or a probability of earlier ones (they sum to one). MPE
and MAP maximise over the slices unrolled, so ``--unroll`` says how many. A dynamic file
met without either is refused with what to write instead.

>>> unrolled_steps(["Rain[2]", "Umbrella[0]", "Rain"], ("Rain", "Umbrella"))
3
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable

from bbn.apps.cli.options import read_model
from bbn.core.errors import BBNError
from bbn.core.lazy import reference
from bbn.model.markov import MarkovNetwork
from bbn.model.network import Network

_STEP = re.compile(r"^(.*)\[([0-9]+)\]$")


def add_unroll_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """``--unroll T``: the slices of a dynamic model to unroll (≥ 1)."""
    parser.add_argument("--unroll", type=_slices, metavar="T", help=help)


def _slices(text: str) -> int:
    try:
        steps = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of slices") from None
    if steps < 1:
        raise argparse.ArgumentTypeError(f"a network unrolls to at least one slice, not {steps}")
    return steps


def query_names(query) -> list[str]:
    """Every variable a parsed query names (:class:`bbn.questions.language.Query`).

    >>> from bbn.questions.language import parse_query
    >>> query_names(parse_query("P(Rain[2] | Umbrella[0]=T)"))
    ['Rain[2]', 'Umbrella[0]']
    """
    return [name for items in (query.targets, query.evidence, query.others, query.do,
                               query.counterfactual) for name, _ in items]


def unrolled_steps(names: Iterable[str], variables: Iterable[str]) -> int | None:
    """How many slices hold every ``X[t]`` of ``names`` whose ``X`` is one of
    ``variables`` (the last t + 1), or None when none is named at a slice.

    Examples
    --------
    >>> unrolled_steps(["A[0]", "B"], ["A"]), unrolled_steps(["B[4]"], ["A"])
    (1, None)
    """
    variables = set(variables)
    steps = [int(m.group(2)) + 1 for m in map(_STEP.match, names)
             if m is not None and m.group(1) in variables]
    return max(steps) if steps else None


def read_unrolled(args: argparse.Namespace, names: Iterable[str] = (),
                  example: str = "") -> Network | MarkovNetwork:
    """The model ``args.model`` names, with ``--normalize``; a dynamic one unrolled to
    ``args.unroll`` slices, or else to the last slice ``names`` (the question's variables)
    name.

    With ``--unroll`` any file is read as a dynamic network (a two-slice file too:
    :func:`bbn.load_dynamic`).

    Raises
    ------
    BBNError
        A slice named beyond ``--unroll``; a dynamic model with neither ``--unroll``
        nor a slice named (the message shows ``example`` with the model's own first
        variable, and the option).
    """
    if args.unroll is not None:
        dbn = reference("bbn.io.formats.bn.timeslices:load_dynamic")(
            args.model, normalize=args.normalize)
        steps = unrolled_steps(names, dbn.variables)
        if steps is not None and steps > args.unroll:
            raise BBNError(f"the question names slice {steps - 1}, and --unroll "
                           f"{args.unroll} keeps slices 0 to {args.unroll - 1}: give "
                           f"--unroll {steps} or more")
        return dbn.unroll(args.unroll)
    model = read_model(args, dynamic="keep")
    if isinstance(model, (Network, MarkovNetwork)):
        return model
    steps = unrolled_steps(names, model.variables)
    if steps is None:
        first = model.variables[0]
        hint = example.format(first=first) if example else ""
        raise BBNError(f"{args.model} is a dynamic network (a parent in the slice before): "
                       f"bbn {getattr(args, 'command', 'this command')} works on its "
                       f"unrolled network, whose variables are {first}[0], {first}[1], ...; "
                       f"{hint}give --unroll T for T slices")
    return model.unroll(steps)


__all__ = ["add_unroll_argument", "query_names", "read_unrolled", "unrolled_steps"]
