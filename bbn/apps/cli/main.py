"""The ``bbn`` command.

Each subcommand is a function ``run_NAME(args) -> int`` registered in ``COMMANDS``
with a function that adds its arguments. Errors derived from :class:`bbn.BBNError`
and a file the system cannot read or write (OSError) are printed to stderr without a
traceback; any other exception is a bug in bbn and keeps its traceback.

Exit codes: 0 success; 1 a well-formed question that cannot be answered (impossible
evidence, and only that); 2 everything else that is wrong with the input: bad usage
(with close subcommands and options suggested), an unreadable or invalid model or data
file, a malformed query, a model too large for the memory limit.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence

import bbn
from bbn.apps.cli.classify import add_classify_arguments, run_classify
from bbn.apps.cli.learn import (
    add_learn_arguments,
    add_sample_arguments,
    run_learn,
    run_sample,
)
from bbn.apps.cli.serve import add_serve_arguments, run_serve
from bbn.apps.cli.structure import add_structure_arguments, run_structure
from bbn.apps.cli.tree import add_tree_arguments, run_tree
from bbn.core.errors import BBNError, ImpossibleEvidenceError, suggest
from bbn.io.formats import read_text, write_atomically
from bbn.questions import dispatch
from bbn.questions.language import parse_query
from bbn.questions.presentation import to_json, to_text
from bbn.tasks.competition import TASKS, answer_task, read_evidence, result_text

EXIT_OK, EXIT_UNANSWERABLE, EXIT_BAD_INPUT = 0, 1, 2


# ------------------------------------------------------------------ query
def add_query_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file (.bn, .bif, .xmlbif, .net, .uai; optionally .gz)")
    parser.add_argument("query", help='e.g. "P(C | A=T)", "P(C=T | A=T)", "MAP(C, S | A=T)"')
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    parser.add_argument("--log", action="store_true",
                        help="print the natural log of a probability such as P(A=T, S=F) "
                        "(exact below 1e-308, where the probability prints as 0)")
    add_method_arguments(parser)


def add_method_arguments(parser: argparse.ArgumentParser) -> None:
    """``--method`` and the approximate methods' settings (see docs/approximate.md)."""
    parser.add_argument("--method", default="exact",
                        help="exact (the default), or approximately: lbp (loopy belief "
                        "propagation), lw (likelihood weighting), is (importance sampling), "
                        "gibbs")
    parser.add_argument("--samples", type=int, help="samples an approximate sampler draws")
    parser.add_argument("--seed", type=int, help="the seed of an approximate sampler")
    parser.add_argument("--time-budget", type=float, metavar="SECONDS",
                        help="stop an approximate method after this many seconds")


def method_of(args: argparse.Namespace):
    """The method the options name: "exact", or an approximate method's value."""
    settings = {"samples": args.samples, "seed": args.seed, "time_budget": args.time_budget}
    return dispatch.method_from_options(args.method, **settings)


def run_query(args: argparse.Namespace) -> int:
    net = bbn.load(args.model, normalize=args.normalize)
    query = parse_query(args.query)
    method = method_of(args)
    if args.log:
        value = dispatch.log_answer(net, query, method)
        if args.json:  # JSON has no -Infinity: P = 0 is null
            print(json.dumps({"query": query.text(),
                              "log_p": value if value > -math.inf else None}))
        else:
            print(f"log {query.text()} = {value:.6f}")
        return EXIT_OK
    result = dispatch.ask(net, query, method)
    print(json.dumps(to_json(query, result)) if args.json else to_text(query, result))
    return EXIT_OK


# ---------------------------------------------------------------- explain
def add_explain_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file")
    parser.add_argument("query", help='e.g. "P(C=T | A=T)", "P(C | A=T)", "MAP(C, S | A=T)"')
    parser.add_argument("--format", choices=("text", "markdown", "latex"), default="text",
                        help="text (default), markdown (with LaTeX formulas) or a LaTeX "
                        "fragment")


def run_explain(args: argparse.Namespace) -> int:
    from bbn.tasks.explain.derivation import explain  # here: not loaded by the other commands

    net = bbn.load(args.model, normalize=args.normalize)
    derivation = explain(net, parse_query(args.query))
    print({"text": derivation.to_text, "markdown": derivation.to_markdown,
           "latex": derivation.to_latex}[args.format]().rstrip("\n"))
    return EXIT_OK


# ------------------------------------------------------------------- info
def add_model_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file")


def run_info(args: argparse.Namespace) -> int:
    net = bbn.load(args.model, normalize=args.normalize)
    if isinstance(net, bbn.MarkovNetwork):
        return _markov_info(net)
    print(f"network {net.name!r}: {len(net.variables)} variables, "
          f"{len(net.arcs())} arcs")
    rows = [("variable", "states", "parents")]
    for v in net.variables:
        rows.append((v, ", ".join(net.states(v)), ", ".join(net.parents(v)) or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        print("  " + "   ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    print(f"free parameters: {net.free_parameters()} "
          f"(the full joint table needs {net.joint_parameters()})")
    if not net.is_complete:
        missing = [v for v in net.variables if not net.has_cpt(v)]
        print(f"structure only: no table for {', '.join(missing)}")
    return EXIT_OK


def _markov_info(net: bbn.MarkovNetwork) -> int:
    print(f"Markov network {net.name!r}: {len(net.variables)} variables, "
          f"{len(net.factors)} factors")
    rows = [("variable", "states", "factors")]
    held: dict[str, int] = dict.fromkeys(net.variables, 0)
    for factor in net.factors:
        for v in factor.variables:
            held[v] += 1
    for v in net.variables:
        rows.append((v, ", ".join(net.states(v)), str(held[v])))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        print("  " + "   ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    print(f"entries: {sum(f.values.size for f in net.factors)} in the factors")
    return EXIT_OK


# ------------------------------------------------------------------ check
def run_check(args: argparse.Namespace) -> int:
    net = bbn.load(args.model, normalize=args.normalize)
    problems = [] if isinstance(net, bbn.MarkovNetwork) else net.validate()  # checked on reading
    if problems:
        for problem in problems:
            print(f"{args.model}: {problem}", file=sys.stderr)
        print(f"{args.model}: {len(problems)} problem(s)", file=sys.stderr)
        return EXIT_BAD_INPUT
    arcs = (f"{len(net.factors)} factors" if isinstance(net, bbn.MarkovNetwork)
            else f"{len(net.arcs())} arcs")
    print(f"{args.model}: ok ({len(net.variables)} variables, {arcs})")
    return EXIT_OK


# ---------------------------------------------------------------- convert
def add_convert_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="model file to read")
    parser.add_argument("output", help="file to write; its extension picks the format")


def run_convert(args: argparse.Namespace) -> int:
    bbn.save(bbn.load(args.input, normalize=args.normalize), args.output)
    print(f"wrote {args.output}")
    return EXIT_OK


# ----------------------------------------------------------------- render
def add_render_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file")
    parser.add_argument("-o", "--output", help="picture to write: .png, .svg, .pdf, or .dot/.gv "
                        "(DOT source, no Graphviz needed); without it the DOT source is printed")
    parser.add_argument("--tables", action="store_true", help="show each node's table")
    parser.add_argument("--evidence", help='observed states, e.g. "A=T, S=F" (highlighted)')
    parser.add_argument("--posteriors", action="store_true",
                        help="show a bar per state with P(state | evidence)")
    parser.add_argument("--rankdir", choices=("TB", "LR"), default="TB",
                        help="TB: parents above children (default); LR: left to right")
    parser.add_argument("--max-rows", type=int, default=16, metavar="N",
                        help="rows drawn per table before it is cut (default 16)")
    parser.add_argument("--trail", metavar="QUESTION",
                        help='an independence question, e.g. "C _|_ S | A": its observed '
                        "variables are shaded and one active trail is drawn in red")
    parser.add_argument("--compare", metavar="REFERENCE",
                        help="colour each arc against this model: correct, reversed, extra, "
                        "missing (dashed); the caption gives the structural Hamming distances")


def run_render(args: argparse.Namespace) -> int:
    from bbn.apps.rendering import render

    net = bbn.load(args.model, normalize=args.normalize)
    reference = None if args.compare is None else bbn.load(args.compare,
                                                           normalize=args.normalize)
    graph = render(net, args.output, tables=args.tables, evidence=args.evidence,
                   posteriors=args.posteriors, rankdir=args.rankdir, max_rows=args.max_rows,
                   compare=reference, trail=args.trail)
    if args.output is None:
        print(graph.source, end="")
    else:
        print(f"wrote {args.output}")
    return EXIT_OK


#: name → (help, add arguments, run)
# -------------------------------------------------------------------- uai
def add_uai_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="model file (UAI .uai or .uai.gz, or any model format)")
    parser.add_argument("--evid", metavar="FILE",
                        help="the competition's evidence file (count var state ...)")
    parser.add_argument("--task", required=True, type=str.upper, choices=TASKS,
                        help="MAR: every marginal; PR: log10 of Z(e) or P(e); MPE")
    parser.add_argument("-o", "--output", metavar="RESULT",
                        help="write the result file here (atomically) instead of stdout")
    add_method_arguments(parser)


def run_uai(args: argparse.Namespace) -> int:
    net = bbn.load(args.model, normalize=args.normalize)
    evidence = read_evidence(read_text(args.evid), net, args.evid) if args.evid else {}
    text = result_text(args.task, answer_task(net, args.task, evidence, method_of(args))) + "\n"
    if args.output:
        write_atomically(args.output, text)
    else:
        print(text, end="")
    return EXIT_OK


COMMANDS: dict[str, tuple[str, Callable, Callable]] = {
    "query": ("answer a probability, posterior or MAP query", add_query_arguments, run_query),
    "explain": ("show the working of a query: factorisation, sums, normalisation",
                add_explain_arguments, run_explain),
    "info": ("list variables, states, parents and parameter counts", add_model_argument,
             run_info),
    "check": ("validate a model and report every problem", add_model_argument, run_check),
    "convert": ("convert a model between formats", add_convert_arguments, run_convert),
    "render": ("draw a network, its tables or its posteriors with Graphviz",
               add_render_arguments, run_render),
    "learn": ("learn a model's tables from a CSV file", add_learn_arguments, run_learn),
    "sample": ("draw rows from a model into a CSV file, a chunk at a time",
               add_sample_arguments, run_sample),
    "classify": ("predict a variable for every row of a CSV file", add_classify_arguments,
                 run_classify),
    "structure": ("learn a network's structure and tables from a CSV file",
                  add_structure_arguments, run_structure),
    "uai": ("answer a UAI competition task (MAR, PR, MPE) in the competition's formats",
            add_uai_arguments, run_uai),
    "serve": ("explore a model in the browser: click a state, watch every belief update",
              add_serve_arguments, run_serve),
    "tree": ("grow a decision tree from a CSV file; print it, draw it, save it",
             add_tree_arguments, run_tree),
}


def add_normalize_argument(parser: argparse.ArgumentParser) -> None:
    """``--normalize``, on every command (each one reads a model): rows of the model's
    tables are rescaled to sum 1 as they are read (``bbn.load(path, normalize=True)``)."""
    parser.add_argument("--normalize", action="store_true",
                        help="rescale each row of the model's tables to sum 1 as it is read "
                             "(for files whose numbers were rounded)")


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors suggest a close subcommand, choice or option
    (``bbn qurey`` → "did you mean 'query'?"), as Python 3.12's ``suggest_on_error``
    does for choices; bbn supports 3.10."""

    def parse_known_args(self, args=None, namespace=None):
        self._argv = list(sys.argv[1:] if args is None else args)  # for error(): the command
        return super().parse_known_args(args, namespace)

    def error(self, message: str):
        super().error(message + self._suggestion(message))

    def _suggestion(self, message: str) -> str:
        choice = re.search(r"argument (.+?): invalid choice: '([^']*)'", message)
        if choice:
            for action in self._actions:
                if action.choices is not None and choice[1] in (
                        action.metavar, action.dest, "/".join(action.option_strings)):
                    return suggest(choice[2], action.choices)
            return ""
        unknown = re.search(r"unrecognized arguments: (\S+)", message)
        if unknown and unknown[1].startswith("-"):
            return suggest(unknown[1], self._options())
        return ""

    def _options(self) -> list[str]:
        """This parser's options and those of the subcommand on the command line."""
        options = [o for action in self._actions for o in action.option_strings]
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                named = [action.choices[a] for a in getattr(self, "_argv", ())
                         if a in action.choices][:1]
                options += [o for sub in named for a in sub._actions for o in a.option_strings]
        return options


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="bbn", description="Discrete Bayesian networks.")
    parser.add_argument("--version", action="version", version=f"bbn {bbn.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, add_arguments, run) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        add_arguments(sub)
        add_normalize_argument(sub)
        sub.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``bbn`` command, as the console script does.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after ``bbn`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0 success, 1 impossible evidence, 2 bad input (the message on
        stderr, no traceback); 130 on Ctrl-C.

    Raises
    ------
    SystemExit
        From argparse, for ``--help``, ``--version`` and bad usage (code 2).

    Examples
    --------
    >>> main(["query", "models/chair.bn", "P(C=T | A=T)", "--json"])
    {"query": "P(C=T | A=T)", "p": 0.8867492332181544}
    0
    """
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ImpossibleEvidenceError as error:
        print(f"bbn {args.command}: {error}", file=sys.stderr)
        return EXIT_UNANSWERABLE
    except BBNError as error:
        print(f"bbn {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:  # a file the system refuses: no such file, permission, a folder
        where = f"{error.filename}: " if error.filename is not None else ""
        print(f"bbn {args.command}: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
