"""The options several ``bbn`` commands share, and reading the model they name.

``--normalize`` is on every command (:func:`add_normalize_argument`, added by
:mod:`bbn.apps.cli.main`); ``--method`` with the approximate methods' settings on
``query`` and ``uai`` (:func:`add_method_arguments`, read back by :func:`method_of`);
:func:`read_model` loads the model a command names, honouring ``--normalize``.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_model_argument(parser); add_normalize_argument(parser); add_method_arguments(parser)
>>> args = parser.parse_args(["models/chair.bn"])
>>> method_of(args), sorted(read_model(args).variables)
('exact', ['A', 'B', 'C', 'S', 'W'])
"""

from __future__ import annotations

import argparse
import os

from bbn.core.errors import BBNError
from bbn.io.formats import load
from bbn.model.markov import MarkovNetwork
from bbn.model.network import Network
from bbn.questions import dispatch


def add_model_argument(parser: argparse.ArgumentParser, help: str = "model file") -> None:
    """The positional ``model``: the file a command reads."""
    parser.add_argument("model", help=help)


def add_normalize_argument(parser: argparse.ArgumentParser) -> None:
    """``--normalize``, on every command (each one reads a model): rows of the model's
    tables are rescaled to sum 1 as they are read (``bbn.load(path, normalize=True)``)."""
    parser.add_argument("--normalize", action="store_true",
                        help="rescale each row of the model's tables to sum 1 as it is read "
                             "(for files whose numbers were rounded)")


def read_model(args: argparse.Namespace, path: str | None = None,
               dynamic: str = "refuse") -> Network | MarkovNetwork:
    """The model at ``path`` (default: ``args.model``), read with ``--normalize``.

    A dynamic network (a ``.bn`` file with ``P(X | X[-1])``) is refused with what to do
    instead (``dynamic="refuse"``), returned as its two-slice network (``"two slices"``:
    ``check``, ``convert``, ``render``) or as it is (``"keep"``: ``classify``, ``info``).

    Raises
    ------
    BBNError
        A file that is no valid model (located at its line and column), or a dynamic
        network where the command needs an ordinary one.
    OSError
        A file the system cannot read.
    """
    where = args.model if path is None else path
    net = load(where, normalize=args.normalize)
    if isinstance(net, (Network, MarkovNetwork)) or dynamic == "keep":
        return net
    if dynamic == "two slices":
        return net.slices()
    raise BBNError(f"{where} is a dynamic network (a parent in the slice before): bbn "
                   f"{getattr(args, 'command', 'this command')} takes an ordinary one. Ask "
                   "it with bbn filter, bbn viterbi or bbn classify --sequence-id, or bbn "
                   "query on its unrolled network (--unroll T); see it with bbn info or bbn "
                   "render; write it in another format with bbn convert")


def count(text: str) -> int:
    """A number of rows as the command line takes it: ``1000000``, ``1e6``, ``1_000_000``.

    >>> count("1e6"), count("250")
    (1000000, 250)
    """
    try:
        value = float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if isinstance(value, float) and not value.is_integer():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def add_method_arguments(parser: argparse.ArgumentParser, auto: bool = False) -> None:
    """``--method`` and the approximate methods' settings (see docs/approximate.md);
    ``auto``: the default method is ``auto`` (``bbn uai``: exact where it fits, else
    approximate within ``--time-budget``)."""
    methods = ("lbp (loopy belief propagation), lw (likelihood weighting), is (importance "
               "sampling), gibbs")
    exact = "cutset (exact by conditioning on a few variables, where no tree fits memory)"
    parser.add_argument("--method", default="auto" if auto else "exact",
                        help=(f"auto (the default: exact where it fits the memory limit and "
                              f"--time-budget, else approximate within it), exact, {exact}, "
                              f"{methods}" if auto else
                              f"exact (the default), {exact}, or approximately: {methods}"))
    parser.add_argument("--samples", type=int, help="samples an approximate sampler draws")
    parser.add_argument("--seed", type=int, help="the seed of an approximate sampler")
    parser.add_argument("--time-budget", type=float, metavar="SECONDS",
                        help=("the whole answer's seconds with auto (default 60); with an "
                              "approximate method, stop it after this many seconds"
                              if auto else "stop an approximate method after this many "
                              "seconds"))


def method_of(args: argparse.Namespace) -> object:
    """The method the options name: ``"exact"``, or an approximate method's value
    (``--method gibbs --samples 500`` → ``Gibbs(samples=500, ...)``).

    Raises
    ------
    BBNError
        An approximate method's setting given without ``--method``, or an unknown method
        (with close matches).
    """
    settings = {"samples": args.samples, "seed": args.seed, "time_budget": args.time_budget}
    return dispatch.method_from_options(args.method, **settings)


__all__ = ["add_method_arguments", "count", "add_model_argument", "add_normalize_argument",
           "method_of", "read_model"]


def refuse_overwriting(output: str | None, **inputs: str | None) -> None:
    """Refuse an output file that is one of the command's inputs (``bbn sample m.bn -o
    m.bn`` would replace the model with rows), before anything is read or written.

    Parameters
    ----------
    output : str or None
        The ``-o`` file (None: standard output).
    **inputs : str or None
        The input files by role (``model=``, ``data=``...).

    Raises
    ------
    BBNError
        Naming the file and its role.

    Examples
    --------
    >>> refuse_overwriting("rows.csv", model="models/chair.bn")
    >>> refuse_overwriting("models/chair.bn", model="models/chair.bn")
    Traceback (most recent call last):
        ...
    bbn.core.errors.BBNError: -o models/chair.bn is the model file read: writing it would ...
    """
    if output is None:
        return
    for role, path in inputs.items():
        if path is not None and _same_file(output, path):
            raise BBNError(f"-o {output} is the {role} file read: writing it would replace "
                           "it; choose another output file")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet): compare where they would be
        return os.path.realpath(a) == os.path.realpath(b)
