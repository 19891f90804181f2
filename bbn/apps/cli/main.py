"""The ``bbn`` command: the top-level parser and the dispatch to one subcommand.

Each subcommand is a module of :mod:`bbn.apps.cli` named for it, with
``add_arguments(parser)`` and ``run(args) -> int``. :data:`COMMANDS` gives each one's
name, one-line help and module path (a lazy reference): ``bbn --help`` lists every
command from that table alone, and a command imports only its own module, so ``bbn
query`` never loads pandas, Graphviz or the learning code.

Errors derived from :class:`bbn.BBNError` and a file the system cannot read or write
(OSError) are printed to stderr without a traceback; any other exception is a bug in bbn
and keeps its traceback. Exit codes (:mod:`bbn.apps.cli.exit_codes`): 0 success; 1 a
well-formed question that cannot be answered (impossible evidence, and only that); 2
everything else that is wrong with the input: bad usage (with close subcommands and
options suggested), an unreadable or invalid model or data file, a malformed query, a
model too large for the memory limit.

>>> main(["qurey", "models/chair.bn", "P(C)"])
Traceback (most recent call last):
    ...
SystemExit: 2
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence

from bbn.apps.cli.advice import cli_advice, quiet_stdout
from bbn.apps.cli.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_UNANSWERABLE,
)
from bbn.apps.cli.options import add_normalize_argument
from bbn.core.errors import BBNError, ImpossibleEvidenceError, NoAnswerError, suggest

#: name → (one-line help, the module that adds its arguments and runs it), in the order
#: ``bbn --help`` lists them
COMMANDS: dict[str, tuple[str, str]] = {
    "query": ("answer a probability, posterior or MAP query", "bbn.apps.cli.query"),
    "solve": ("an influence diagram's optimal policies and maximum expected utility",
              "bbn.apps.cli.solve"),
    "explain": ("show the working of a query: factorisation, sums, normalisation",
                "bbn.apps.cli.explain"),
    "info": ("list variables, states, parents and parameter counts", "bbn.apps.cli.info"),
    "check": ("validate a model and report every problem", "bbn.apps.cli.check"),
    "convert": ("convert a model between formats", "bbn.apps.cli.convert"),
    "render": ("draw a network, its tables or its posteriors with Graphviz",
               "bbn.apps.cli.render"),
    "learn": ("learn a model's tables from a CSV file", "bbn.apps.cli.learn"),
    "sample": ("draw rows from a model into a CSV file, a chunk at a time",
               "bbn.apps.cli.sample"),
    "classify": ("predict a variable for every row of a CSV file", "bbn.apps.cli.classify"),
    "structure": ("learn a network's structure and tables from a CSV file",
                  "bbn.apps.cli.structure"),
    "uai": ("answer a UAI competition task (MAR, PR, MPE) in the competition's formats",
            "bbn.apps.cli.uai_competition"),
    "serve": ("explore a model in the browser: click a state, watch every belief update",
              "bbn.apps.cli.serve"),
    "tree": ("grow a decision tree from a CSV file; print it, draw it, save it",
             "bbn.apps.cli.tree"),
    "filter": ("P(X_t | findings) at every step of sequences (a two-slice model)",
               "bbn.apps.cli.filter"),
    "viterbi": ("the most probable states at every step of sequences (a two-slice model)",
                "bbn.apps.cli.viterbi"),
}


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


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version of bbn and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib import metadata  # here: only --version reads the installed metadata

        try:
            version = metadata.version("bbn")
        except metadata.PackageNotFoundError:
            version = "(not installed)"
        parser.exit(message=f"bbn {version}\n")


def command_named(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is no option, if a command.

    >>> command_named(["--normalize", "query", "m.bn", "P(C)"]), command_named(["qurey"])
    ('query', None)
    """
    words = [a for a in argv if not a.startswith("-")]
    return words[0] if words and words[0] in COMMANDS else None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``bbn`` parser: every command listed, only the one ``argv`` names imported and
    given its arguments (with ``--normalize``, which every command takes).

    >>> parser = build_parser(["info", "models/chair.bn"])
    >>> parser.parse_args(["info", "models/chair.bn"]).run.__module__
    'bbn.apps.cli.info'
    """
    parser = ArgumentParser(prog="bbn", description="Discrete Bayesian networks.")
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = command_named(argv)
    for name, (help_text, module) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            command = importlib.import_module(module)
            command.add_arguments(sub)
            add_normalize_argument(sub)
            sub.set_defaults(run=command.run)
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
    argv = list(sys.argv[1:] if argv is None else argv)
    try:  # Ctrl-C while the command's modules load: 130 too
        parser = build_parser(argv)
        if not argv:  # bare `bbn`: a usage error that lists the commands
            parser.print_help(sys.stderr)
            raise SystemExit(EXIT_BAD_INPUT)
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    try:
        return args.run(args)
    except (ImpossibleEvidenceError, NoAnswerError) as error:  # no answer: exit 1
        print(f"bbn {args.command}: {error}", file=sys.stderr)
        return EXIT_UNANSWERABLE
    except BBNError as error:
        print(f"bbn {args.command}: {cli_advice(str(error), parser._options())}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `bbn sample ... | head`: the reader has what it wanted
        quiet_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as error:  # a file the system refuses: no such file, permission, a folder
        where = f"{error.filename}: " if error.filename is not None else ""
        print(f"bbn {args.command}: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
