"""Workload 18: interventions and uncertain evidence against the same hard question.

For each (query variable X, three evidence variables) case of workload 2, one evidence
variable E1 is given four ways, the other two staying hard findings:

* hard: ``E1 = e1`` (the baseline, ``net.posterior([X], e)``);
* do: ``do={E1: e1}`` — the mutilated network's posterior;
* likelihood: ``{E1: {e1: 1, others: 0.5}}`` — a virtual child observed;
* soft: ``soft={E1: {e1: 0.7, the states the rest allows: 0.3 shared}}`` — Jeffrey's
  rule (the joint of E1 given the rest, then the likelihood);
* likelihood, new numbers: the likelihood's numbers changed at every question;
* soft new: the soft finding's numbers changed at every question;
* soft first: the soft finding asked with other evidence the model has not seen (what
  Jeffrey's rule needs of the other evidence, P(E1 | rest), is kept per evidence: the
  ``soft`` cell asks again, this one forgets it before each round);
* joint: the hard question P(X, E1 | the other two) — what a likelihood on E1 needs of
  the engine (E1 summed out, not sliced): the floor of that cell;
* soft 2, soft 2 first: E1 and E2 both given soft findings (0.7 on the sampled state),
  E3 hard — Jeffrey's sum Σ_w T(w) P(X | w, E3), T the fit of P(E1, E2 | E3), both from
  one elimination — asked again, and with whatever is kept between questions forgotten
  before each round (nothing is kept for two soft findings alone: the same computation);
* all hard, all likelihood new: every posterior at once (``net.posteriors``), hard and
  with the likelihood's numbers changed at every question (one propagation in the
  junction tree of the question's shape, the numbers given with it: no view made);
  these two take turns with each other, after the others.

A single soft finding is Jeffrey's rule as written, Σ_w q(w) P(X | w, rest): one batched
hard question over E1's states, nothing kept between questions, so ``soft``, ``soft
new`` and ``soft first`` are the same computation (asked first is asked with a warm
plan cache, as the hard question is: every cell's plans are compiled before timing).

The cells take turns (interleaved); times are medians per question, the plan caches
warm (every question asked once before timing). The ratios to ``hard`` are the target
(at most 1.5).
"""

from __future__ import annotations

import warnings

import bbn.questions.uncertain as uncertain

from .harness import Row, Section, Settings, attempt, measure_side_by_side
from .models import bbn_network, evidence_cases

TITLE = "interventions and uncertain evidence, per question, against the hard question"
NETWORKS = ["alarm", "child", "insurance", "andes"]


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("18", TITLE, ["hard", "joint", "do", "likelihood", "soft",
                                    "likelihood new", "soft new", "soft first", "soft 2",
                                    "soft 2 first", "all hard", "all likelihood new"],
                      [("do", "hard"), ("likelihood", "hard"), ("soft", "hard"),
                       ("likelihood new", "hard"), ("soft new", "hard"),
                       ("soft first", "hard"), ("soft 2", "hard"), ("soft 2 first", "hard"),
                       ("all likelihood new", "all hard"), ("likelihood", "joint")])
    section.comment = ("one of three evidence variables given as do / likelihood / soft, "
                       "the others hard; medians per question, cells interleaved")
    for name in networks or NETWORKS:
        net, failed = attempt(lambda name=name: bbn_network(name), "bbn: ")
        row = Row("uncertain", f"{name} e=3")
        if failed:
            row.cells["hard"] = failed
            section.add(row)
            continue
        cases = evidence_cases(name, 3, 3 if settings.quick else 5)
        section.add(_row(settings, net, cases, row))
    return section


def forget() -> None:
    """Forget the P(W_soft | e) kept for Jeffrey's rule (untimed, before a round)."""
    uncertain._MARGINALS.clear()


def _row(settings: Settings, net, cases, row: Row) -> Row:
    questions, pairs = [], []

    def soft_on(variable: str, state: str, rest: dict) -> dict:
        prior = net.posterior(variable, rest).to_dict()  # 0.3 where the rest allows it
        allowed = [s for s in net.states(variable) if s != state and prior[s] > 0]
        return ({state: 0.7, **dict.fromkeys(allowed, 0.3 / len(allowed))} if allowed
                else {state: 1.0})

    for x, e in cases:
        (first, state), rest = next(iter(e.items())), dict(list(e.items())[1:])
        others = [s for s in net.states(first) if s != state]
        likelihood = {state: 1.0, **dict.fromkeys(others, 0.5)}
        soft = soft_on(first, state, rest)
        questions.append((x, e, first, state, rest, likelihood, soft))
        (second, other), third = list(rest.items())[0], dict(list(rest.items())[1:])
        pairs.append((x, third, {first: soft_on(first, state, third),
                                 second: soft_on(second, other, third)}))
    counter = [0]

    def fresh(likelihood: dict) -> dict:
        counter[0] += 1
        return {s: p * (1 + 1e-9 * counter[0]) for s, p in likelihood.items()}

    def fresh_soft(q: dict) -> dict:  # still a distribution: one state's share moved
        counter[0] += 1
        (first, p), *rest = q.items()
        if not rest:
            return q
        shift = 1e-9 * (counter[0] % 1000)
        return {first: p - shift, rest[0][0]: rest[0][1] + shift, **dict(rest[1:])}

    runs = {
        "hard": lambda: [net.posterior([x], e) for x, e, *_ in questions],
        "joint": lambda: [net.posterior([x, f], rest) for x, _, f, _, rest, _, _ in questions],
        "do": lambda: [net.posterior([x], rest, do={f: s})
                       for x, _, f, s, rest, _, _ in questions],
        "likelihood": lambda: [net.posterior([x], {**rest, f: lk})
                               for x, _, f, _, rest, lk, _ in questions],
        "soft": lambda: [net.posterior([x], rest, soft={f: q})
                         for x, _, f, _, rest, _, q in questions],
        "likelihood new": lambda: [net.posterior([x], {**rest, f: fresh(lk)})
                                   for x, _, f, _, rest, lk, _ in questions],
        "soft new": lambda: [net.posterior([x], rest, soft={f: fresh_soft(q)})
                             for x, _, f, _, rest, _, q in questions],
    }
    runs["soft 2"] = lambda: [net.posterior([x], third, soft=soft)
                              for x, third, soft in pairs]
    every = {"all hard": lambda: [net.posteriors(e) for _, e, *_ in questions],
             "all likelihood new": lambda: [net.posteriors({**rest, f: fresh(lk)})
                                            for _, _, f, _, rest, lk, _ in questions]}
    with warnings.catch_warnings():  # warm the plan caches (and check every cell answers)
        warnings.simplefilter("ignore")  # a fit that does not converge still answers
        for run in [*runs.values(), *every.values()]:
            run()
    runs["soft first"] = lambda _: runs["soft"]()
    runs["soft 2 first"] = lambda _: runs["soft 2"]()
    setups = {"soft first": forget, "soft 2 first": forget}
    runs["soft first"](forget())
    row.cells.update(measure_side_by_side(settings, runs, setups, per=len(questions)))
    # apart (as when each new set of numbers made a view, whose garbage's collection fell
    # on the 30 µs cells)
    row.cells.update(measure_side_by_side(settings, every, per=len(questions)))
    return row
