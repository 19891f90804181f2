"""Building, inspecting, validating, copying and comparing networks."""

from __future__ import annotations

import re

import networkx as nx
import numpy as np
import pytest
from example_networks import TF, chair_network, monty_hall_network

import bbn
from bbn import Factor, ModelError, Network
from bbn.model.network import PackedTables


def _family(net: Network, child: str = "B") -> None:
    """Declare C and S (no tables needed) and B with parents (C, S)."""
    net.add_variable("C", TF)
    net.add_variable("S", TF)
    net.add_variable(child, TF, parents=["C", "S"])


# ---------------------------------------------------------------- inspection
def test_chair_inspection(chair):
    assert chair.name == "Back ache"
    assert chair.variables == ("C", "S", "W", "B", "A")
    assert chair.parents("B") == ("C", "S")
    assert chair.states("B") == ("T", "F")
    assert chair.children("C") == ("W", "B")
    assert chair.children("A") == ()
    assert chair.description("W") == "is a worker"
    assert chair.cardinality("A") == 2
    assert chair.is_complete and chair.validate() == []
    assert chair.has_cpt("A")
    assert chair.topological_order() == ["C", "S", "W", "B", "A"]
    assert sorted(chair.graph.edges) == [("B", "A"), ("C", "B"), ("C", "W"), ("S", "B")]
    cpt = chair.cpt("B")
    assert cpt.variables == ("C", "S", "B")
    assert cpt.values[1, 1, 0] == 0.01  # P(B=T | C=F, S=F)
    assert chair.cpt_array("B").shape == (2, 2, 2)
    assert "5 variables" in repr(chair) and "4 arcs" in repr(chair)


def test_free_parameters_chair_10_against_31(chair):
    # 1 + 1 + 2 + 4 + 2 numbers against 2^5 - 1 for the full joint
    assert chair.free_parameters() == 10
    assert chair.joint_parameters() == 31


def test_free_parameters_with_more_states():
    monty = monty_hall_network()
    assert monty.free_parameters() == 2 + 3 * 1
    assert monty.joint_parameters() == 3 * 2 - 1


def test_tables_are_read_only_copies(chair):
    source = np.array([[0.7, 0.3], [0.1, 0.9]])
    chair.set_cpt("A", source)
    source[0, 0] = 0.0
    assert chair.cpt_array("A")[0, 0] == 0.7
    with pytest.raises(ValueError):
        chair.cpt_array("A")[0, 0] = 0.5


def test_topological_order_differs_from_declaration_order():
    net = Network()
    net.add_variable("child", TF)
    net.add_variable("root", TF)
    net.add_variable("other", TF)
    net.set_parents("child", ["root"])
    assert net.variables == ("child", "root", "other")
    assert net.topological_order() == ["root", "child", "other"]


def test_states_are_strings_in_order():
    net = Network()
    net.add_variable("N", [3, 1, 2])
    assert net.states("N") == ("3", "1", "2")


# ------------------------------------------------------------------ validation
def test_cycle_is_refused_and_named(chair):
    with pytest.raises(ModelError) as error:
        chair.add_edge("A", "C")
    message = str(error.value)
    assert "cycle" in message
    assert "C -> B -> A -> C" in message
    # the refused arc leaves the network as it was, tables included
    assert chair.parents("C") == () and chair.has_cpt("C")
    assert chair == chair_network()


def test_self_loop_is_a_cycle(chair):
    with pytest.raises(ModelError, match="cycle A -> A"):
        chair.add_edge("A", "A")


def test_unknown_parent_suggests_a_name():
    net = Network()
    net.add_variable("Smoker", TF)
    with pytest.raises(ModelError, match=r"unknown variable 'Smokr'.*did you mean 'Smoker'"):
        net.add_variable("Cancer", TF, parents=["Smokr"])
    with pytest.raises(ModelError, match="unknown variable 'Cancr'"):
        net.parents("Cancr")


def test_failed_add_variable_leaves_no_trace():
    """A refused declaration must not half-add the variable (so it can be retried)."""
    net = Network()
    net.add_variable("Smoker", TF, table=[0.3, 0.7])
    with pytest.raises(ModelError):
        net.add_variable("Cancer", TF, parents=["Smokr"])
    with pytest.raises(ModelError):
        net.add_variable("Cough", TF, parents=["Smoker"], table=[0.5, 0.5])
    assert net.variables == ("Smoker",)
    net.add_variable("Cancer", TF, parents=["Smoker"], table=[[0.1, 0.9], [0.01, 0.99]])
    assert net.parents("Cancer") == ("Smoker",)


@pytest.mark.parametrize("states, match", [
    (["T", "F", "T"], r"'X' lists state\(s\) \['T'\] more than once"),
    ([], "'X' has no states"),
    (["T", ""], "'X' has an empty state name"),
])
def test_bad_states(states, match):
    with pytest.raises(ModelError, match=match):
        Network().add_variable("X", states)


def test_bad_names():
    net = Network()
    with pytest.raises(ModelError, match="non-empty name"):
        net.add_variable("", TF)
    net.add_variable("X", TF)
    with pytest.raises(ModelError, match="'X' is declared twice"):
        net.add_variable("X", TF)
    net.add_variable("Y", TF)
    with pytest.raises(ModelError, match="parent twice"):
        net.set_parents("Y", ["X", "X"])


def test_wrong_table_shape_names_family_and_shape():
    net = Network()
    _family(net)
    with pytest.raises(ModelError) as error:
        net.set_cpt("B", [[0.5, 0.5], [0.5, 0.5]])
    message = str(error.value)
    assert "P(B | C, S)" in message and "(2, 2, 2)" in message and "8 numbers" in message


def test_negative_entry_names_configuration_and_state():
    net = Network()
    _family(net)
    table = [[[0.9, 0.1], [1.2, -0.2]], [[0.5, 0.5], [0.5, 0.5]]]
    with pytest.raises(ModelError, match=r"P\(B \| C=T, S=F\) has a negative entry -0\.2.* 'F'"):
        net.set_cpt("B", table)


def test_row_not_summing_to_one_names_configuration_and_sum():
    net = Network()
    _family(net)
    table = [[[0.9, 0.1], [0.2, 0.7]], [[0.9, 0.1], [0.01, 0.99]]]
    with pytest.raises(ModelError) as error:
        net.set_cpt("B", table)
    message = str(error.value)
    assert "P(B | C=T, S=F)" in message
    reported = float(re.search(r"sums to ([0-9.e+-]+),", message).group(1))
    assert reported == pytest.approx(0.9)
    assert "normalize=True" in message
    assert not net.has_cpt("B")


def test_row_sum_tolerance_is_1e_6_plus_half_a_sixth_decimal_per_entry():
    net = Network()
    net.add_variable("X", TF, table=[0.999999, 0.0])  # off by 1e-6 + 3e-17: accepted
    net.add_variable("Y", ["a", "b", "c"], table=[0.333333, 0.333333, 0.333333])
    net.set_cpt("X", [0.5, 0.5 + 1.9e-6])  # 2 entries: tolerance 2e-6
    with pytest.raises(ModelError, match=r"sums to 1\.0000021.*tolerance 2e-06"):
        net.set_cpt("X", [0.5, 0.5 + 2.1e-6])
    with pytest.raises(ModelError, match=r"tolerance 2\.5e-06"):
        net.set_cpt("Y", [0.333333, 0.333333, 0.33333])
    assert net.cpt_array("X").tolist() == [0.5, 0.5 + 1.9e-6]  # kept as given


def test_several_bad_rows_are_counted():
    net = Network()
    _family(net)
    with pytest.raises(ModelError, match=r"and 3 more problem"):
        net.set_cpt("B", np.full((2, 2, 2), 0.4))


def test_non_numeric_and_non_finite_tables():
    net = Network()
    net.add_variable("X", TF)
    with pytest.raises(ModelError, match="not numeric"):
        net.set_cpt("X", ["a", "b"])
    with pytest.raises(ModelError, match="non-finite"):
        net.set_cpt("X", [np.nan, 1.0])


def test_normalize_is_opt_in():
    net = Network()
    _family(net)
    counts = [[[9, 1], [2, 8]], [[3, 1], [1, 99]]]
    with pytest.raises(ModelError):
        net.set_cpt("B", counts)
    net.set_cpt("B", counts, normalize=True)
    np.testing.assert_allclose(net.cpt_array("B")[0, 0], [0.9, 0.1])
    np.testing.assert_allclose(net.cpt_array("B")[1, 0], [0.75, 0.25])
    np.testing.assert_allclose(net.cpt_array("B")[1, 1], [0.01, 0.99])
    with pytest.raises(ModelError, match=r"P\(B \| C=F, S=T\) sums to 0\.0"):
        net.set_cpt("B", [[[9, 1], [2, 8]], [[0, 0], [1, 99]]], normalize=True)


# -------------------------------------------------------------- table inputs
B_TABLE = np.array([[[0.9, 0.1], [0.2, 0.8]], [[0.9, 0.1], [0.01, 0.99]]])


def _b_given(table, **kwargs) -> np.ndarray:
    net = Network()
    _family(net)
    net.set_cpt("B", table, **kwargs)
    return net.cpt_array("B")


def test_table_from_nested_lists():
    np.testing.assert_array_equal(_b_given(B_TABLE.tolist()), B_TABLE)


def test_table_from_flat_rows_last_parent_fastest():
    rows = [[0.9, 0.1], [0.2, 0.8], [0.9, 0.1], [0.01, 0.99]]  # (T,T), (T,F), (F,T), (F,F)
    np.testing.assert_array_equal(_b_given(rows), B_TABLE)


def test_table_from_ndarray():
    np.testing.assert_array_equal(_b_given(B_TABLE), B_TABLE)


def test_table_from_dict_keyed_by_parent_states():
    table = {("F", "F"): [0.01, 0.99], ("T", "T"): [0.9, 0.1],
             ("T", "F"): [0.2, 0.8], ("F", "T"): [0.9, 0.1]}
    np.testing.assert_array_equal(_b_given(table), B_TABLE)


def test_table_from_dict_errors():
    with pytest.raises(ModelError, match=r"no row for P\(B \| C=F, S=F\)"):
        _b_given({("T", "T"): [0.9, 0.1], ("T", "F"): [0.2, 0.8], ("F", "T"): [0.9, 0.1]})
    with pytest.raises(ModelError, match=r"parent 'S' has no state 'f'.*did you mean 'F'"):
        _b_given({("T", "T"): [0.9, 0.1], ("T", "f"): [0.2, 0.8]})
    with pytest.raises(ModelError, match="one state for each parent"):
        _b_given({"T": [0.9, 0.1]})
    with pytest.raises(ModelError, match=r"P\(B \| C=T, S=T\) needs 2 numbers, got 3"):
        _b_given({("T", "T"): [0.9, 0.1, 0.0], ("T", "F"): [0.2, 0.8],
                  ("F", "T"): [0.9, 0.1], ("F", "F"): [0.01, 0.99]})


def test_table_from_factor_in_any_axis_order():
    factor = Factor(["B", "C", "S"], {"B": ("F", "T"), "C": TF, "S": TF},
                    np.transpose(B_TABLE, (2, 0, 1))[::-1])
    np.testing.assert_array_equal(_b_given(factor), B_TABLE)
    with pytest.raises(ModelError, match=r"factor given for P\(B \| C, S\) is over"):
        _b_given(Factor(["B", "C"], {"B": TF, "C": TF}, np.full((2, 2), 0.5)))


def test_cpt_round_trips_through_factor(chair):
    copy = chair.copy()
    copy.set_cpt("B", chair.cpt("B"))
    assert copy == chair


# ------------------------------------------------------------ modification
def test_set_parents_drops_the_table(chair):
    chair.set_parents("A", ["B", "W"])
    assert chair.parents("A") == ("B", "W")
    assert not chair.has_cpt("A") and not chair.is_complete
    assert chair.validate() == ["variable 'A' has no table"]
    with pytest.raises(ModelError, match="'A' has no table"):
        chair.cpt("A")
    chair.set_cpt("A", np.full((2, 2, 2), 0.5))
    assert chair.validate() == []


def test_remove_variable(chair):
    chair.remove_variable("B")
    assert chair.variables == ("C", "S", "W", "A")
    assert chair.parents("A") == () and not chair.has_cpt("A")
    assert chair.children("C") == ("W",)


def test_graph_is_a_frozen_copy(chair):
    graph = chair.graph
    assert list(graph.nodes) == ["C", "S", "W", "B", "A"]
    assert graph.nodes["B"]["parents"] == ("C", "S") and graph.nodes["W"]["states"] == tuple(TF)
    with pytest.raises(nx.NetworkXError, match="Frozen"):
        graph.add_edge("A", "C")
    with pytest.raises(nx.NetworkXError, match="Frozen"):
        graph.remove_node("B")
    graph.nodes["B"]["parents"] = ("C",)  # the copy's attributes, not the network's
    graph.nodes["W"]["table"] = None
    assert chair == chair_network() and chair.parents("B") == ("C", "S")
    assert sorted(chair.graph.edges) == [("B", "A"), ("C", "B"), ("C", "W"), ("S", "B")]


def test_membership_arcs_and_nodes(chair):
    assert "B" in chair and "Z" not in chair and ["B"] not in chair
    assert chair.arcs() == [("C", "W"), ("C", "B"), ("S", "B"), ("B", "A")]
    assert repr(chair) == "Network('Back ache', 5 variables, 4 arcs)"
    network = chair.compiled()
    assert network.variables == chair.variables and network.parents["B"] == ("C", "S")
    assert network.tables["A"] is chair.cpt_array("A") and network.zero_free["A"]
    with pytest.raises(TypeError):
        network.parents["B"] = ()  # read-only: the network changes through its methods


def test_topological_order_takes_the_earliest_declared_ready_variable():
    net = Network.assemble("n", {v: TF for v in "DCBAE"},
                           parents={"D": ["A"], "C": ["E"], "B": ["E", "C"]})
    # ready at first: A, E; A is declared first, then D (declared before E) is ready
    assert net.topological_order() == ["A", "D", "E", "C", "B"]
    with pytest.raises(ModelError, match="would create the cycle E -> C -> B -> E"):
        net.set_parents("E", ["B"])
    assert net.parents("E") == () and net.arcs() == [("A", "D"), ("E", "C"), ("E", "B"),
                                                     ("C", "B")]


def test_copy_is_independent(chair):
    copy = chair.copy()
    assert copy == chair and copy is not chair
    copy.set_cpt("C", [0.5, 0.5])
    copy.set_description("W", "works")
    copy.add_variable("New", TF, parents=["A"])
    copy.set_parents("B", ["C"])
    original = chair_network()
    assert chair == original
    assert chair.cpt_array("C")[0] == 0.8 and chair.description("W") == "is a worker"
    assert chair.parents("B") == ("C", "S") and "New" not in chair.variables
    # and the original still answers as before (its inference cache is its own)
    assert chair.query("P(C=T | A=T)") == pytest.approx(22840 / 25757, abs=1e-12)


def test_equality_compares_everything(chair):
    assert chair == chair_network()
    assert chair != "chair"

    def changed(change) -> Network:
        net = chair_network()
        change(net)
        return net

    assert changed(lambda n: setattr(n, "name", "other")) != chair
    assert changed(lambda n: n.set_description("A", "ouch")) != chair
    assert changed(lambda n: n.set_cpt("A", [[0.7, 0.3], [0.1 + 1e-12, 0.9 - 1e-12]])) != chair
    assert changed(lambda n: n.set_parents("A", ["B"])) != chair  # same parents, no table
    reordered = Network("Back ache")
    for v in ("S", "C", "W", "B", "A"):
        reordered.add_variable(v, TF, chair.description(v), chair.parents(v), chair.cpt(v))
    assert reordered != chair  # declaration order is part of the network


def test_structure_only_network_refuses_inference():
    net = Network()
    net.add_variable("X", TF)
    with pytest.raises(ModelError, match="'X' has no table"):
        net.posterior(["X"])
    assert isinstance(ModelError("x"), bbn.BBNError)


# ------------------------------------------------------------- bulk building
def _parts(net: Network) -> tuple[dict, dict, dict, dict]:
    """(states, parents, tables, descriptions) of a network, for Network.assemble."""
    return ({v: net.states(v) for v in net.variables},
            {v: net.parents(v) for v in net.variables if net.parents(v)},
            {v: np.array(net.cpt_array(v)) for v in net.variables if net.has_cpt(v)},
            {v: net.description(v) for v in net.variables if net.description(v) is not None})


@pytest.mark.parametrize("make", [chair_network, monty_hall_network])
def test_assemble_builds_what_one_variable_at_a_time_builds(make):
    net = make()
    states, parents, tables, descriptions = _parts(net)
    packed = PackedTables(list(tables), np.concatenate([t.ravel() for t in tables.values()]))
    lists = {v: t.tolist() for v, t in tables.items()}
    for given in (tables, packed, lists):
        built = Network.assemble(net.name, states, parents, given, descriptions)
        assert built == net
        assert sorted(built.graph.edges) == sorted(net.graph.edges)
        for v in net.variables:
            node, expected = built.graph.nodes[v], net.graph.nodes[v]
            assert node["positive"] == expected["positive"]  # Monty's King has zeros
            assert node["table"].shape == expected["table"].shape
            assert not node["table"].flags.writeable
    built = Network.assemble(net.name, states, parents, tables, descriptions)
    for table in tables.values():  # the arrays given were copied, not kept
        table[...] = 0.0
    packed.numbers[...] = 0.0
    assert built == net
    assert Network.assemble(net.name, states, parents, _parts(net)[2], descriptions) == net


def test_assemble_with_parents_declared_later_and_structure_only():
    net = Network.assemble("later", {"Y": TF, "X": TF, "Z": ["a", "b", "c"]},
                           {"Y": ["X"], "X": ["Z"]},
                           {"Y": np.array([[0.25, 0.75], [1.0, 0.0]])})
    assert net.variables == ("Y", "X", "Z")
    assert net.topological_order() == ["Z", "X", "Y"]
    assert net.parents("X") == ("Z",) and not net.has_cpt("X")
    assert net.cpt_array("Y").tolist() == [[0.25, 0.75], [1.0, 0.0]]
    assert net.graph.nodes["Y"]["positive"] is False and not net.is_complete


def _one_at_a_time_error(build) -> str:
    with pytest.raises(ModelError) as caught:
        build()
    return str(caught.value)


@pytest.mark.parametrize("states, parents, tables, descriptions", [
    ({"X": ["T", "F", "T"]}, {}, {}, {}),                             # a state twice
    ({"X": []}, {}, {}, {}),                                          # no states
    ({"X": ["T", ""]}, {}, {}, {}),                                   # an empty state
    ({"": TF}, {}, {}, {}),                                           # an empty name
    ({"X": TF}, {"X": ["Y"]}, {}, {}),                                # an unknown parent
    ({"X": TF, "Y": TF}, {"Y": ["X", "X"]}, {}, {}),                  # a parent twice
    ({"X": TF}, {"W": ["X"]}, {}, {}),                                # an unknown child
    ({"X": TF, "Y": TF}, {"Y": ["X"], "X": ["Y"]}, {}, {}),           # a cycle
    ({"X": TF}, {"X": ["X"]}, {}, {}),                                # a self-loop
    ({"X": TF}, {}, {"X": np.array([0.5, 0.6])}, {}),                 # a row sum
    ({"X": TF}, {}, {"X": np.array([1.5, -0.5])}, {}),                # a negative entry
    ({"X": TF}, {}, {"X": np.array([np.nan, 1.0])}, {}),              # not finite
    ({"X": TF}, {}, {"X": np.array([np.inf, 0.0])}, {}),              # not finite
    ({"X": TF}, {}, {"X": np.array([0.2, 0.3, 0.5])}, {}),            # the wrong size
    ({"X": TF}, {}, {"X": ["a", "b"]}, {}),                           # not numeric
    ({"X": TF}, {}, {"Y": np.array([0.5, 0.5])}, {}),                 # a table of nothing
    ({"X": TF}, {}, {}, {"Y": "why"}),                                # a description too
    ({"X": TF, "Y": TF}, {"Y": ["X"]},                                # the 2nd row of Y
     {"X": np.array([0.5, 0.5]), "Y": np.array([[0.5, 0.5], [0.5, 0.4]])}, {}),
])
def test_assemble_raises_what_the_calls_one_at_a_time_raise(states, parents, tables,
                                                            descriptions):
    def one_at_a_time():
        net = Network()
        for v, names in states.items():
            net.add_variable(v, names)
        for v, given in parents.items():
            net.set_parents(v, given)
        for v, table in tables.items():
            net.set_cpt(v, table)
        for v, text in descriptions.items():
            net.set_description(v, text)

    expected = _one_at_a_time_error(one_at_a_time)
    assert _one_at_a_time_error(
        lambda: Network.assemble("n", states, parents, tables, descriptions)) == expected
    arrays = [t for t in tables.values() if isinstance(t, np.ndarray)]
    if arrays and len(arrays) == len(tables) and "needs shape" not in expected:
        packed = PackedTables(list(tables), np.concatenate([t.ravel() for t in arrays]))
        assert _one_at_a_time_error(
            lambda: Network.assemble("n", states, parents, packed, descriptions)) == expected


def test_packed_tables_that_do_not_add_up():
    with pytest.raises(ModelError, match=r"hold 3 numbers, the tables of \['X', 'Y'\] need 4"):
        Network.assemble("n", {"X": TF, "Y": TF}, {}, PackedTables(["X", "Y"], [0.5, 0.5, 1.0]))
    with pytest.raises(ModelError, match="name a variable twice"):
        Network.assemble("n", {"X": TF}, {}, PackedTables(["X", "X"], [0.5, 0.5, 0.5, 0.5]))


def test_set_cpts_sets_several_tables_and_says_what_is_wrong(chair):
    tables = {"B": B_TABLE[::-1].copy(), "A": np.array([[0.5, 0.5], [0.25, 0.75]]),
              "C": [0.3, 0.7]}
    chair.set_cpts(tables)
    for v, table in tables.items():
        np.testing.assert_array_equal(chair.cpt_array(v), table)
    chair.set_cpts({"B": chair.cpt("B"), "W": {"T": [0.5, 0.5], "F": [0.2, 0.8]}})
    assert chair.cpt_array("W").tolist() == [[0.5, 0.5], [0.2, 0.8]]
    chair.set_cpts(PackedTables(["C", "S"], np.array([0.1, 0.9, 0.4, 0.6])))
    assert chair.cpt_array("S").tolist() == [0.4, 0.6]
    assert chair.query("P(C=T)") == pytest.approx(0.1)  # the inference cache was cleared
    with pytest.raises(ModelError, match=r"P\(A \| B=F\) sums to 1.5"):
        chair.set_cpts({"A": np.array([[0.5, 0.5], [0.5, 1.0]])})
    with pytest.raises(ModelError, match="unknown variable 'Q'"):
        chair.set_cpts({"Q": np.array([0.5, 0.5])})
    assert chair.cpt_array("A").tolist() == [[0.5, 0.5], [0.25, 0.75]]  # as before
