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
* joint: the hard question P(X, E1 | the other two) — what a likelihood or a soft finding
  on E1 needs of the engine (E1 summed out, not sliced): the floor of those two cells.

The cells take turns (interleaved); times are medians per question, the plan caches
warm (every question asked once before timing). The ratios to ``hard`` are the target
(at most 1.5).
"""

from __future__ import annotations

import bbn.questions.uncertain as uncertain

from .harness import Row, Section, Settings, attempt, measure_side_by_side
from .models import bbn_network, evidence_cases

TITLE = "interventions and uncertain evidence, per question, against the hard question"
NETWORKS = ["alarm", "child", "insurance", "andes"]


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("18", TITLE, ["hard", "joint", "do", "likelihood", "soft",
                                    "likelihood new", "soft new", "soft first"],
                      [("do", "hard"), ("likelihood", "hard"), ("soft", "hard"),
                       ("likelihood new", "hard"), ("soft new", "hard"),
                       ("soft first", "hard"),
                       ("likelihood", "joint"), ("soft first", "joint")])
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
    questions = []
    for x, e in cases:
        (first, state), rest = next(iter(e.items())), dict(list(e.items())[1:])
        others = [s for s in net.states(first) if s != state]
        likelihood = {state: 1.0, **dict.fromkeys(others, 0.5)}
        prior = net.posterior(first, rest).to_dict()  # 0.3 where the rest allows it
        allowed = [s for s in others if prior[s] > 0]
        soft = {state: 0.7, **dict.fromkeys(allowed, 0.3 / len(allowed))} if allowed else {
            state: 1.0}
        questions.append((x, e, first, state, rest, likelihood, soft))
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
    for run in runs.values():  # warm the plan caches (and check every cell answers)
        run()
    runs["soft first"] = lambda _: runs["soft"]()
    setups = {"soft first": forget}
    runs["soft first"](forget())
    row.cells.update(measure_side_by_side(settings, runs, setups, per=len(questions)))
    return row
