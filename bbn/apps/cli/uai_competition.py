"""``bbn uai MODEL --task MAR|PR|MPE [--evid FILE]``: a UAI competition task answered in
the competition's file formats (evidence in, result out).

By default (``--method auto``) exactly where that fits the memory limit and, estimated,
``--time-budget`` (60 s by default), otherwise approximately within it
(:mod:`bbn.tasks.anytime`); standard error then says which method answered and why
exact inference did not. ``--method exact``, ``lbp``, ... ask for one method.

>>> from bbn.apps.cli.main import main
>>> main(["uai", "models/chair.bn", "--task", "MAR"])
MAR
5 2 0.8 0.2 2 0.02 0.98 2 0.722 0.278 2 0.17676 0.82324 2 0.206056 0.793944
0
"""

from __future__ import annotations

import argparse
import sys
import time

from bbn.apps.cli.exit_codes import EXIT_OK
from bbn.apps.cli.options import add_method_arguments, add_model_argument, method_of, read_model
from bbn.io.formats import read_text, write_atomically
from bbn.tasks.anytime import DEFAULT_BUDGET, answer_auto
from bbn.tasks.competition import TASKS, answer_task, read_evidence, result_text

#: The method ``bbn uai`` uses unless told: exact where it fits, else approximate in time.
AUTO = "auto"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, "model file (UAI .uai or .uai.gz, or any model format)")
    parser.add_argument("--evid", metavar="FILE",
                        help="the competition's evidence file (count var state ...)")
    parser.add_argument("--task", required=True, type=str.upper, choices=TASKS,
                        help="MAR: every marginal; PR: log10 of Z(e) or P(e); MPE")
    parser.add_argument("-o", "--output", metavar="RESULT",
                        help="write the result file here (atomically) instead of stdout")
    add_method_arguments(parser, auto=True)


#: The share of the time budget left after reading the model that answering may take:
#: the rest covers starting Python and writing the result.
ANSWER_SHARE = 0.9


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    net = read_model(args)
    evidence = read_evidence(read_text(args.evid), net, args.evid) if args.evid else {}
    if str(args.method).strip().lower() == AUTO:
        budget = DEFAULT_BUDGET if args.time_budget is None else args.time_budget
        budget = ANSWER_SHARE * max(budget - (time.perf_counter() - started), 0.0)
        def best_so_far(found) -> None:  # written before exact inference is tried
            if args.output:
                write_atomically(args.output, result_text(args.task, found.answer) + "\n")

        found = answer_auto(net, args.task, evidence, budget,
                            seed=0 if args.seed is None else args.seed, on_answer=best_so_far,
                            progress=True)
        answer = found.answer
        if found.method == "cutset":
            print(f"bbn uai: answered by cutset (exact, by conditioning) in {found.seconds:.1f} s "
                  f"({found.why})", file=sys.stderr)
        elif found.method != "exact":
            print(f"bbn uai: answered by {found.method} in {found.seconds:.1f} s "
                  f"(approximate: {found.why})", file=sys.stderr)
    else:
        answer = answer_task(net, args.task, evidence, method_of(args))
    text = result_text(args.task, answer) + "\n"
    if args.output:
        write_atomically(args.output, text)
    else:
        print(text, end="")
    return EXIT_OK


__all__ = ["add_arguments", "run"]
