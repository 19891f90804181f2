"""Building the network of a ``.bn`` file from its statements: at once when nothing is
wrong (:func:`fast_network`), else a phase at a time collecting every mistake with its
position (:class:`LocatedBuilder`).

Tables are checked once: by :meth:`~bbn.model.network.Network.set_cpts` on the fast path, and
by :func:`bbn.core.tables.bad_rows` in the located builder, which maps each bad row to the
number where it is written.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.core.tables import bad_rows, normalized, plain, row_tolerance
from bbn.io.formats._text import Retry, check_table, name_from_source
from bbn.io.formats.bn.compact import set_compact, softmax_form
from bbn.io.formats.bn.linear import is_linear, set_linear
from bbn.io.formats.bn.statements import (
    Decision,
    NetworkName,
    Numbers,
    Problem,
    Row,
    Table,
    Utility,
    Variable,
    number_positions,
    number_strings,
)
from bbn.io.formats.bn.writing import family_header
from bbn.model.influence_diagram import InfluenceDiagram
from bbn.model.network import Network


def fast_network(statements: list, builder: LocatedBuilder) -> Network:
    """The network of a model with no mistake, built at once with Network.assemble; Retry
    or ModelError on any mistake, which :meth:`LocatedBuilder.build` then reports where it is.
    ``builder`` converts the tables (its reports are only a signal here)."""
    names = [s.name.value for s in statements if type(s) is NetworkName]
    if len(names) > 1:
        raise Retry
    states, descriptions, parents, tables = {}, {}, {}, {}
    for s in statements:
        if type(s) in (Decision, Utility):  # an influence diagram: built a phase at a time
            raise Retry
        if type(s) is Variable:
            if s.name.value in states or s.gaussian:  # Gaussians: built one at a time
                raise Retry
            states[s.name.value] = [state.value for state in s.states]
            if s.description is not None:
                descriptions[s.name.value] = s.description.value
        elif type(s) is Table:
            if s.variable.value in parents:
                raise Retry
            parents[s.variable.value] = [p.value for p in s.parents]
            if s.compact is not None:  # compact tables: built one at a time
                raise Retry
            if s.numbers is not None or s.rows is not None:
                tables[s.variable.value] = s
    net = Network.assemble(names[0] if names else name_from_source(builder.source), states,
                           parents, descriptions=descriptions)
    arrays = {variable: builder.table_array(net, table, check_rows=False)
              for variable, table in tables.items()}
    if builder.problems:
        raise Retry
    net.set_cpts(arrays, builder.normalize)  # the rows' one check; ModelError on a bad one
    return net


class Problems(Exception):
    """The mistakes found by one phase of building the network."""

    def __init__(self, problems: list[Problem], dropped: int, untabled: list[Problem]):
        super().__init__(problems)
        self.problems = problems
        self.dropped = dropped
        self.untabled = untabled  # variables without a table: no mistake, but worth saying


class LocatedBuilder:
    """Turns parsed statements into a Network, collecting mistakes with their position.

    Declarations, then parents, then tables: each phase reports every mistake it finds,
    and a phase with mistakes is the last one run (later ones would only echo them).
    """

    LIMIT = 20  # mistakes reported at most

    def __init__(self, text: str, source: str, normalize: bool = False):
        self.text = text
        self.source = source
        self.normalize = normalize  # rescale rows (check_rows does it)
        self.problems: list[Problem] = []
        self.dropped = 0
        self.untabled: list[Problem] = []

    def line(self, loc: int) -> int:
        return self.text.count("\n", 0, loc) + 1  # as pyparsing's lineno

    def report(self, message: str, loc: int) -> None:
        if len(self.problems) < self.LIMIT:
            self.problems.append(Problem(message, loc))
        else:
            self.dropped += 1

    def checkpoint(self) -> None:
        if self.problems:
            raise Problems(self.problems, self.dropped, self.untabled)

    def build(self, statements: list) -> Network:
        names = [s.name for s in statements if isinstance(s, NetworkName)]
        for name in names[1:]:
            self.report(f"the network is named twice (first at line {self.line(names[0].loc)}"
                        "; a file holds one 'network' statement)", name.loc)
        diagram = any(isinstance(s, (Decision, Utility)) for s in statements)
        net = (InfluenceDiagram if diagram else Network)(
            names[0].value if names else name_from_source(self.source))
        declared: dict[str, Variable] = {}
        for variable in (s for s in statements if isinstance(s, (Variable, Decision))):
            self.declare(net, variable, declared)
        self.checkpoint()
        for decision in (s for s in statements if isinstance(s, Decision)):
            self.connect_decision(net, decision)
        # all parents first: setting a variable's parents would drop a table already set
        tables: dict[str, Table] = {}
        for table in (s for s in statements if isinstance(s, Table)):
            self.connect(net, table, tables)
        self.checkpoint()
        for table in tables.values():
            if table.numbers is None and table.rows is None:
                continue  # structure only
            if table.compact is not None:
                set_compact(net, table, self.report)
                continue
            if is_linear(net, table):
                set_linear(net, table, self.report)
                continue
            array = self.table_array(net, table)
            if array is not None:
                try:
                    if net.is_gaussian(table.variable.value):
                        net.set_gaussian(table.variable.value, array[:, 0], array[:, 1])
                    else:
                        net.set_cpt(table.variable.value, array)
                except ModelError as error:  # anything set_cpt checks that we did not
                    self.report(str(error), table.loc)
        for variable in (s for s in statements if isinstance(s, Variable)):
            table = tables.get(variable.name.value)
            if table is None or (table.numbers is None and table.rows is None):
                self.untabled.append(Problem(f"variable {variable.name.value!r} has no table",
                                             variable.name.loc))
        self.checkpoint()
        for utility in (s for s in statements if isinstance(s, Utility)):
            self.add_utility(net, utility)
        self.checkpoint()
        return net

    def connect_decision(self, net: InfluenceDiagram, decision: Decision) -> None:
        """A decision's information arcs (what is known when it is taken)."""
        name = decision.name.value
        for parent in decision.parents:
            if parent.value not in net:
                self.report(f"unknown variable {parent.value!r} known to decision {name!r}"
                            f"{suggest(parent.value, net.variables)}", parent.loc)
                return
        if decision.parents:
            try:
                net.set_parents(name, [p.value for p in decision.parents])
            except ModelError as error:  # a repeated name, a cycle
                self.report(str(error), decision.name.loc)

    def utility_rows(self, net: InfluenceDiagram, utility: Utility, parents: list[str],
                     shape: list[int]) -> np.ndarray | None:
        """The rows of a utility: keyed by the states of every parent but the last, each
        one number per state of the last; every configuration once."""
        name, keys = utility.name.value, parents[:-1]
        if not keys:
            self.report(f"utility {name!r} has one parent: write its values as "
                        f"utility {name}({parents[0]}) = u1, u2, ... (rows are keyed by "
                        "every parent but the last)", utility.loc)
            return None
        placed: dict[tuple, list[str]] = {}
        for row in utility.rows:
            if len(row.key) != len(keys):
                self.report(f"a row of utility {name!r} needs {len(keys)} state(s) "
                            f"({', '.join(keys)}), then {shape[-1]} numbers (one per state "
                            f"of {parents[-1]!r})", row.key_loc)
                return None
            index = []
            for i, (parent, state) in enumerate(zip(keys, row.key)):
                if state not in net.states(parent):
                    self.report(f"{parent!r} has no state {state!r}"
                                f"{suggest(state, net.states(parent))}", row.state_loc(i))
                    return None
                index.append(net.states(parent).index(state))
            parts = number_strings(row.numbers)
            if len(parts) != shape[-1] or tuple(index) in placed:
                self.report(f"the row {', '.join(row.key)} of utility {name!r} " + (
                    "is given twice" if tuple(index) in placed else
                    f"needs {shape[-1]} numbers (one per state of {parents[-1]!r}), "
                    f"got {len(parts)}"), row.key_loc)
                return None
            placed[tuple(index)] = parts
        configurations = list(itertools.product(*(range(n) for n in shape[:-1])))
        missing = [c for c in configurations if c not in placed]
        if missing:
            given = ", ".join(net.states(p)[i] for p, i in zip(keys, missing[0]))
            self.report(f"utility {name!r} has no row for {given}", utility.end)
            return None
        return _floats([x for c in configurations for x in placed[c]])

    def add_utility(self, net: InfluenceDiagram, utility: Utility) -> None:
        """A utility node: its parents and its numbers, the last parent fastest."""
        name, parents = utility.name.value, [p.value for p in utility.parents]
        for parent in utility.parents:
            if parent.value not in net:
                self.report(f"unknown parent {parent.value!r} of utility {name!r}"
                            f"{suggest(parent.value, net.variables)}", parent.loc)
                return
        shape = [net.cardinality(p) for p in parents]
        if utility.rows is not None:
            numbers = self.utility_rows(net, utility, parents, shape)
            if numbers is None:
                return
        else:
            parts = number_strings(utility.numbers)
            if len(parts) != math.prod(shape):
                self.report(f"utility {name!r} over {parents} needs {math.prod(shape)} "
                            f"numbers (the last parent varying fastest), got {len(parts)}",
                            _count_position(utility.numbers, math.prod(shape)))
                return
            numbers = _floats(parts)
        try:
            net.add_utility(name, parents, numbers.reshape(shape))
        except ModelError as error:
            self.report(str(error), utility.name.loc)

    def declare(self, net: Network, variable: Variable | Decision,
                declared: dict[str, Variable]) -> None:
        name = variable.name.value
        if name in declared:
            self.report(f"variable {name!r} is declared twice (first at line "
                        f"{self.line(declared[name].name.loc)})", variable.name.loc)
            return
        seen: set[str] = set()
        for state in variable.states:
            if state.value in seen:
                self.report(f"variable {name!r} lists state {state.value!r} twice", state.loc)
            seen.add(state.value)
        if len(seen) < len(variable.states):
            return
        description = None if variable.description is None else variable.description.value
        try:
            if isinstance(variable, Decision):
                net.add_decision(name, [s.value for s in variable.states], description)
            elif variable.gaussian:
                net.add_gaussian_variable(name, description=description)
            else:
                net.add_variable(name, [s.value for s in variable.states],
                                 description=description)
        except ModelError as error:  # an empty name or state ("")
            self.report(str(error), variable.name.loc)
            return
        declared[name] = variable

    def connect(self, net: Network, table: Table, tables: dict[str, Table]) -> None:
        name = table.variable.value
        if name not in net:
            self.report(f"table for undeclared variable {name!r}"
                        f"{suggest(name, net.variables)}", table.variable.loc)
            return
        if name in tables:
            self.report(f"a second P({name} ...) statement; the first is at line "
                        f"{self.line(tables[name].loc)} (one per variable)", table.loc)
            return
        seen: set[str] = set()
        fine = True
        for parent in table.parents:
            if parent.value not in net:
                self.report(f"unknown parent {parent.value!r} of {name!r}"
                            f"{suggest(parent.value, net.variables)}", parent.loc)
                fine = False
            elif parent.value in seen:
                self.report(f"parent {parent.value!r} of {name!r} is listed twice", parent.loc)
                fine = False
            seen.add(parent.value)
        if not fine:
            return
        softmax_form(net, table)  # a logistic or softmax with continuous parents
        try:
            net.set_parents(name, [p.value for p in table.parents])
        except ModelError as error:  # a cycle
            self.report(str(error), table.loc)
            return
        tables[name] = table

    def table_array(self, net: Network, table: Table,
                    check_rows: bool = True) -> np.ndarray | None:
        """The table's numbers, shape (configurations, |X|); None after reporting mistakes.
        ``check_rows=False`` leaves the rows of a discrete table (and ``normalize``) to
        set_cpts, which checks all the tables of a file at once."""
        variable = table.variable.value
        gaussian = net.is_gaussian(variable)
        width = 2 if gaussian else net.cardinality(variable)
        configurations = math.prod(net.cardinality(p) for p in net.parents(variable))
        check_table([*map(net.cardinality, net.parents(variable)), width],
                    f"the table of {variable!r} ({len(net.parents(variable))} parents)",
                    self.text, self.source, table.loc)
        blocks = [table.numbers] if table.numbers is not None else [r.numbers for r in table.rows]
        wrong_kind = next((block for block in blocks if block.normal != gaussian), None)
        if wrong_kind is not None:
            self.report_kind(net, variable, wrong_kind)
            return None
        if table.numbers is None:
            found = self.rows_array(net, table, width)
            if found is None:
                return None
            array, spots = found
        elif gaussian and configurations > 1:
            self.report(f"{net.family_text(variable)}: a Gaussian with parents is written as "
                        "rows, one N(mean, variance) per parent configuration: "
                        f"{family_header(net, variable)} {{ state: N(mean, variance) ... }}",
                        table.numbers.loc)
            return None
        else:
            parts = number_strings(table.numbers)
            if len(parts) != configurations * width:
                self.report(_count_message(net, variable, len(parts), configurations),
                            _count_position(table.numbers, configurations * width))
                return None
            array = _floats(parts).reshape(configurations, width)
            spots = [(table.numbers, i * width) for i in range(configurations)]
        if gaussian:
            return array if self.check_normals(net, variable, array, spots) else None
        if not check_rows:
            return array
        return array if self.check_rows(net, variable, array, spots) else None

    def report_kind(self, net: Network, variable: str, numbers: Numbers) -> None:
        """Report N(mean, variance) on a discrete variable, or probabilities on a Gaussian."""
        if numbers.normal:
            self.report(f"N(mean, variance) is for a Gaussian variable, and {variable!r} is "
                        f"discrete: {net.family_text(variable)} takes probabilities",
                        numbers.loc)
        else:
            self.report(f"{variable!r} is Gaussian: write N(mean, variance) where the "
                        "probabilities of a discrete variable would be", numbers.loc)

    def rows_array(self, net: Network, table: Table,
                   width: int) -> tuple[np.ndarray, list[tuple[Numbers, int]]] | None:
        """Place each keyed row (``width`` numbers) at its parent configuration; every one
        exactly once."""
        variable = table.variable.value
        parents = net.parents(variable)
        family = net.family_text(variable)
        index_of = [{s: i for i, s in enumerate(net.states(p))} for p in parents]
        shape = [net.cardinality(p) for p in parents]
        strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
        placed: dict[int, Row] = {}
        fine = True
        for row in table.rows:
            if len(row.key) != len(parents):
                self.report(f"a row of {family} needs {len(parents)} parent state(s) "
                            f"({', '.join(parents)}), got {len(row.key)}", row.key_loc)
                fine = False
                continue
            position = 0
            for i, (parent, states, stride, state) in enumerate(
                    zip(parents, index_of, strides, row.key)):
                if state not in states:
                    self.report(f"parent {parent!r} has no state {state!r}"
                                f"{suggest(state, states)}", row.state_loc(i))
                    position = -1
                    break
                position += stride * states[state]
            if position < 0:
                fine = False
            elif position in placed:
                self.report(f"two rows for {net.configuration_text(variable, position)} (the "
                            f"first at line {self.line(placed[position].key_loc)})",
                            row.key_loc)
                fine = False
            else:
                placed[position] = row
        configurations = math.prod(shape)
        if fine and len(placed) < configurations:
            first = next(p for p in range(configurations) if p not in placed)
            given = net.configuration_text(variable, first).split(" | ")[1][:-1]
            missing = configurations - len(placed)
            more = f" (and {missing - 1} more)" if missing > 1 else ""
            self.report(f"{family} has no row for {given}{more}", table.end)
            fine = False
        if not fine:
            return None
        rows = [placed[p] for p in range(configurations)]
        parts = [number_strings(row.numbers) for row in rows]
        for position, (row, numbers) in enumerate(zip(rows, parts)):
            if len(numbers) != width:
                self.report(f"{net.configuration_text(variable, position)} needs {width} "
                            f"probabilities (one for each state of {variable!r}: "
                            f"{', '.join(net.states(variable))}), got {len(numbers)}",
                            _count_position(row.numbers, width))
                fine = False
        if not fine:
            return None
        array = _floats(list(itertools.chain.from_iterable(parts))).reshape(-1, width)
        return array, [(row.numbers, 0) for row in rows]

    def check_normals(self, net: Network, variable: str, array: np.ndarray,
                      spots: list[tuple[Numbers, int]]) -> bool:
        """Every mean finite and every variance a finite number > 0; else report each bad
        one at its number."""
        fine = True
        for row in np.flatnonzero(~np.isfinite(array).all(axis=1) | (array[:, 1] <= 0)):
            (mean, mean_loc), (variance, variance_loc) = number_positions(spots[row][0])
            where = net.configuration_text(variable, int(row)).replace(f"P({variable}",
                                                                      f"N({variable}", 1)
            if not np.isfinite(array[row, 0]):
                self.report(f"the mean {mean} of {where} is not a finite number", mean_loc)
            else:
                self.report(f"the variance {variance} of {where} must be a finite number > 0",
                            variance_loc)
            fine = False
        return fine

    def check_rows(self, net: Network, variable: str, array: np.ndarray,
                   spots: list[tuple[Numbers, int]]) -> bool:
        """Every row a distribution (:func:`bbn.core.tables.bad_rows`); else report the first
        mistake of each bad row, at its number. Row i is written in block ``spots[i][0]``
        from its ``spots[i][1]``-th number on."""
        bad = bad_rows(array, self.normalize)
        positions: dict[int, list[tuple[str, int]]] = {}  # per block, found once
        for row in bad:
            block, first = spots[row.row]
            if id(block) not in positions:
                positions[id(block)] = number_positions(block)
            numbers = positions[id(block)]
            where = net.configuration_text(variable, row.row)
            if row.entries:
                text, loc = numbers[first + row.entries[0]]
                kind = "negative" if row.reason == "negative" else "not a finite number"
                self.report(f"{text} in {where} is {kind}", loc)
            elif row.reason == "zero sum":
                self.report(f"{where} sums to {plain(row.total)}: only a row with a "
                            "positive sum can be normalised", numbers[first][1])
            else:
                self.report(f"{where} sums to {plain(row.total)}, not 1 (tolerance "
                            f"{row_tolerance(array.shape[1]):.2g})", numbers[first][1])
        if self.normalize and not bad:
            array[...] = normalized(array)
        return not bad


def _count_message(net: Network, variable: str, got: int, configurations: int) -> str:
    width = net.cardinality(variable)
    if not net.parents(variable):
        return (f"{net.family_text(variable)} needs {width} probabilities (one for each state: "
                f"{', '.join(net.states(variable))}), got {got}")
    return (f"{net.family_text(variable)} needs {configurations * width} numbers "
            f"({configurations} parent configurations × {width} states, the last parent "
            f"varying fastest), got {got}")


def _count_position(numbers: Numbers, expected: int) -> int:
    """Where the first number too many is; the start of the block when there are too few."""
    positions = number_positions(numbers)
    return positions[expected][1] if len(positions) > expected else numbers.loc


def _floats(parts: list[str]) -> np.ndarray:
    # float() per number: correctly rounded, so repr() -> float() round-trips exactly
    return np.fromiter(map(float, parts), dtype=float, count=len(parts))

