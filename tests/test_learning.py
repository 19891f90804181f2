"""Parameter learning: estimators, data handling, policies, sampling, the `bbn learn` command."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.data import MISSING, encode_column
from bbn.core.errors import DataError
from bbn.tasks.learning.counting import family_counts
from bbn.tasks.learning.estimators import UnseenParentsWarning, as_estimator


def two_node() -> bbn.Network:
    """A (2 states) → B (3 states), structure only."""
    net = bbn.Network("tiny")
    net.add_variable("A", ["a0", "a1"])
    net.add_variable("B", ["b0", "b1", "b2"], parents=["A"])
    return net


TINY = pd.DataFrame({"A": ["a0", "a0", "a0", "a1"], "B": ["b0", "b0", "b1", "b2"]})


# ------------------------------------------------------------------ estimators
def test_mle_counts_on_tiny_data():
    learned = bbn.learn(two_node(), TINY)
    assert learned.cpt_array("A").tolist() == [0.75, 0.25]
    np.testing.assert_allclose(learned.cpt_array("B"), [[2 / 3, 1 / 3, 0], [0, 0, 1]])


def test_bayes_bdeu_matches_hand_counts():
    # ess = 6: B has q = 2, r = 3, so each cell gets 6/(2·3) = 1 and each row 6/2 = 3;
    # A has q = 1, r = 2: 3 per cell, 6 per row.
    learned = bbn.learn(two_node(), TINY, estimator=bbn.BDeu(ess=6))
    np.testing.assert_allclose(learned.cpt_array("A"), [(3 + 3) / 10, (1 + 3) / 10])
    np.testing.assert_allclose(learned.cpt_array("B"),
                               [[3 / 6, 2 / 6, 1 / 6], [1 / 4, 1 / 4, 2 / 4]])


def test_m_estimate_matches_hand_counts_with_a_per_variable_prior():
    prior = {"B": [0.5, 0.25, 0.25]}
    learned = bbn.learn(two_node(), TINY, estimator=bbn.MEstimate(m=2, prior=prior))
    np.testing.assert_allclose(learned.cpt_array("A"), [(3 + 1) / 6, (1 + 1) / 6])
    np.testing.assert_allclose(learned.cpt_array("B"),
                               [[(2 + 1) / 5, (1 + 0.5) / 5, (0 + 0.5) / 5],
                                [(0 + 1) / 3, (0 + 0.5) / 3, (1 + 0.5) / 3]])
    by_state = bbn.learn(two_node(), TINY, estimator=bbn.MEstimate(
        m=2, prior={"B": {"b0": 0.5, "b1": 0.25, "b2": 0.25}}))
    assert by_state == learned


def test_laplace_matches_hand_counts():
    learned = bbn.learn(two_node(), TINY, estimator=bbn.Laplace(alpha=0.5))
    np.testing.assert_allclose(learned.cpt_array("B"),
                               [[2.5 / 4.5, 1.5 / 4.5, 0.5 / 4.5],
                                [0.5 / 2.5, 0.5 / 2.5, 1.5 / 2.5]])


def test_examples_6_m_estimate_and_laplace_numbers():
    # EXAMPLES.md §6: 10 positive examples, 4 small, 0 medium, 6 large; m = 1, p = 1/3.
    np.testing.assert_allclose(bbn.MEstimate(m=1.0).table(np.array([4.0, 0.0, 6.0])),
                               [13 / 33, 1 / 33, 19 / 33], rtol=0, atol=1e-15)
    # Laplace with λ = 1 over k = 3 values, counts HIGH 4, MED 2, LOW 0.
    np.testing.assert_allclose(bbn.Laplace(alpha=1.0).table(np.array([4.0, 2.0, 0.0])),
                               [5 / 9, 3 / 9, 1 / 9], rtol=0, atol=1e-15)
    # ... and 1/n_i when a class has no training data.
    np.testing.assert_allclose(as_estimator("laplace").table(np.zeros(3)), [1 / 3] * 3)


def test_examples_6_through_learn_with_a_class_without_data():
    net = bbn.Network()
    net.add_variable("class", ["pos", "neg", "none"])
    net.add_variable("size", ["small", "medium", "large"], parents=["class"])
    data = pd.DataFrame({"class": ["pos"] * 10 + ["neg"],
                         "size": ["small"] * 4 + ["large"] * 6 + ["medium"]})
    m = bbn.learn(net, data, estimator=bbn.MEstimate(m=1))
    np.testing.assert_allclose(m.cpt_array("size")[0], [13 / 33, 1 / 33, 19 / 33])
    np.testing.assert_allclose(m.cpt_array("size")[2], [1 / 3] * 3)  # no data: p itself
    laplace = bbn.learn(net, data, estimator="laplace")
    np.testing.assert_allclose(laplace.cpt_array("size")[2], [1 / 3] * 3)


def test_bad_estimator_settings_are_errors():
    with pytest.raises(DataError, match="did you mean 'laplace'"):
        bbn.learn(two_node(), TINY, estimator="laplce")
    with pytest.raises(DataError, match="m > 0"):
        bbn.learn(two_node(), TINY, estimator=bbn.MEstimate(m=0))
    with pytest.raises(DataError, match="sum to 1"):
        bbn.learn(two_node(), TINY, estimator=bbn.MEstimate(prior={"B": [0.5, 0.5, 0.5]}))
    with pytest.raises(DataError, match="did you mean 'b1'"):
        bbn.learn(two_node(), TINY, estimator=bbn.MEstimate(prior={"B": {"b_1": 1.0}}))
    with pytest.raises(DataError, match=r"alpha > 0, got -1"):
        bbn.Laplace(alpha=-1)
    with pytest.raises(DataError, match=r"ess > 0, got nan"):
        bbn.BDeu(ess=float("nan"))
    with pytest.raises(DataError, match=r"alpha given beside the estimator Laplace\(\)"):
        as_estimator(bbn.Laplace(), alpha=2)
    with pytest.raises(DataError, match=r"is a class: give a value, MLE\(\)"):
        bbn.learn(two_node(), TINY, estimator=bbn.MLE)


def test_estimator_names_become_the_same_values():
    assert as_estimator("mle") == bbn.MLE() and as_estimator("ML") == bbn.MLE()
    assert as_estimator("bayes", ess=6) == as_estimator("BDeu", ess=6) == bbn.BDeu(ess=6)
    assert as_estimator("m_estimate", m=2, alpha=9) == bbn.MEstimate(m=2)  # alpha: not its
    assert as_estimator("additive", alpha=0.5) == bbn.Laplace(alpha=0.5)
    estimator = bbn.Laplace(alpha=0.5)
    assert as_estimator(estimator) is estimator
    assert bbn.learn(two_node(), TINY, "laplace") == bbn.learn(two_node(), TINY, bbn.Laplace())
    assert repr(bbn.MEstimate(m=2)) == "MEstimate(m=2)" and repr(bbn.MLE()) == "MLE()"
    assert len({bbn.BDeu(ess=2), bbn.BDeu(ess=2.0), bbn.MEstimate(prior={"B": [1, 0, 0]})}) == 2


def test_settings_beside_a_named_estimator_still_work_with_a_future_warning():
    with pytest.warns(FutureWarning, match=r"bbn.learn: ess= beside estimator= is deprecated"
                                           r".*write estimator=bbn.BDeu\(ess=6\)"):
        old = bbn.learn(two_node(), TINY, estimator="bayes", ess=6)
    assert old == bbn.learn(two_node(), TINY, estimator=bbn.BDeu(ess=6))
    with pytest.warns(FutureWarning, match="m=, prior="):
        old = bbn.learn(two_node(), TINY, "m-estimate", m=2, prior={"B": [0.5, 0.25, 0.25]})
    assert old == bbn.learn(two_node(), TINY, bbn.MEstimate(m=2, prior={"B": [0.5, 0.25, 0.25]}))
    with pytest.raises(DataError, match="m > 0"):  # checked as the value would be
        bbn.learn(two_node(), TINY, estimator="m-estimate", m=0)


# ---------------------------------------------------------------------- policies
def test_unseen_parent_configuration_gives_uniform_row_and_a_warning_listing_it():
    data = TINY[TINY["A"] == "a0"]
    with pytest.warns(UnseenParentsWarning, match=r"P\(B \| A\).*\(A=a1\).*uniform"):
        learned = bbn.learn(two_node(), data)
    np.testing.assert_allclose(learned.cpt_array("B")[1], [1 / 3] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # smoothing estimators never warn
        bbn.learn(two_node(), data, estimator="laplace")


def test_unknown_state_names_column_row_value_and_suggestion(tmp_path):
    data = pd.DataFrame({"A": ["a0", "a1", "A1"], "B": ["b0", "b1", "b2"]},
                        index=[10, 11, 12])
    with pytest.raises(DataError) as error:
        bbn.learn(two_node(), data)
    message = str(error.value)
    assert "column 'A'" in message and "row 12" in message and "'A1'" in message
    assert "did you mean 'a1'" in message
    path = tmp_path / "rows.csv"
    path.write_text("A,B\na0,b0\na1,b7\n")
    with pytest.raises(DataError, match=r"rows.csv: column 'B', line 3: value 'b7'"):
        bbn.learn(two_node(), path)


def test_missing_column_is_an_error_with_a_suggestion():
    with pytest.raises(DataError, match="no column for variable 'B' .*did you mean 'b'"):
        bbn.learn(two_node(), pd.DataFrame({"A": ["a0"], "b": ["b0"]}))


def test_missing_values_error_drop_and_markers(tmp_path):
    data = pd.DataFrame({"A": ["a0", None, "a0", "a1", "a0"],
                         "B": ["b0", "b1", np.nan, "b2", "b1"]})
    with pytest.raises(DataError, match="missing='drop'.*missing='em'"):
        bbn.learn(two_node(), data)
    dropped = bbn.learn(two_node(), data, missing="drop")
    assert dropped == bbn.learn(two_node(), data.dropna())
    np.testing.assert_allclose(dropped.cpt_array("B"), [[0.5, 0.5, 0], [0, 0, 1]])
    path = tmp_path / "holes.csv"  # empty cells and '?' are missing in a CSV file
    path.write_text("A,B\na0,b0\n,b1\na0,?\na1,b2\na0,b1\n")
    assert bbn.learn(two_node(), path, missing="drop") == dropped


def test_missing_policy_is_checked():
    with pytest.raises(DataError, match="missing must be one of"):
        bbn.learn(two_node(), TINY, missing="skip")


def test_data_forms_csv_structured_array_plain_array(tmp_path):
    expected = bbn.learn(two_node(), TINY)
    path = tmp_path / "tiny.csv"
    TINY.to_csv(path, index=False)
    assert bbn.learn(two_node(), path) == expected
    assert bbn.learn(two_node(), str(path)) == expected
    structured = np.array(list(TINY.itertuples(index=False)), dtype=[("A", "U2"), ("B", "U2")])
    assert bbn.learn(two_node(), structured) == expected
    plain = TINY.to_numpy()
    assert bbn.learn(two_node(), plain, columns=["A", "B"]) == expected
    with pytest.raises(DataError, match="columns="):
        bbn.learn(two_node(), plain)
    with pytest.raises(DataError, match="no such file"):
        bbn.learn(two_node(), tmp_path / "absent.csv")


def test_numbers_and_booleans_match_state_names():
    net = bbn.Network()
    net.add_variable("n", ["0", "1", "10"])
    net.add_variable("flag", ["true", "false"], parents=["n"])
    data = pd.DataFrame({"n": [0.0, 1.0, 10.0, 1.0], "flag": [True, False, True, True]})
    learned = bbn.learn(net, data, estimator="laplace")
    np.testing.assert_allclose(learned.cpt_array("flag")[1], [2 / 4, 2 / 4])
    np.testing.assert_allclose(learned.cpt_array("n"), [2 / 7, 3 / 7, 2 / 7])


def test_upper_case_boolean_states_survive_read_csv(tmp_path):
    """pandas.read_csv reads TRUE/FALSE columns as booleans: they still match the states."""
    net = bbn.Network()
    net.add_variable("flag", ["TRUE", "FALSE"])
    path = tmp_path / "flags.csv"
    path.write_text("flag\nTRUE\nFALSE\nTRUE\nTRUE\n")
    frame = pd.read_csv(path)
    assert frame["flag"].dtype == bool
    np.testing.assert_allclose(bbn.learn(net, frame).cpt_array("flag"), [0.75, 0.25])


@pytest.mark.parametrize("dtype", [object, "string", "category"])
def test_text_columns_match_states_whatever_their_objects(dtype):
    """Cells are matched by text: equal strings that are distinct objects, a state first
    seen after the first rows, and missing cells all get the codes a dict gives."""
    rng = np.random.default_rng(4)
    states = ("low", "mid", "high")
    texts = rng.choice(states, 10_000).astype(object)
    texts[:5000] = np.where(texts[:5000] == "high", "mid", texts[:5000])  # "high" only late
    texts = np.array(["".join(list(t)) if t is not None else None for t in texts],
                     dtype=object)  # a fresh object for every cell
    texts[rng.choice(10_000, 50, replace=False)] = None
    column = pd.Series(texts, name="level").astype(dtype)
    codes = encode_column(column, states)
    expected = [states.index(t) if t is not None else MISSING for t in texts]
    assert codes.tolist() == expected


@pytest.mark.parametrize("n_states", [3, 100])  # 100: past IDENTITY_UP_TO, hashing alone
def test_shared_and_fresh_string_objects_mixed_get_the_codes_a_dict_gives(n_states):
    """Columns that reuse a few objects per text (one per block of rows, as a CSV reader's
    chunks give) are matched by identity; cells that are other objects of the same text,
    numbers, missing markers and None must still be found by text. Built from a 2-D object
    array, so each column is a strided view."""
    rng = np.random.default_rng(11)
    states = tuple(f"s{i}" for i in range(n_states - 1)) + ("7",)
    # per block of 4,000 rows, one object per text (not the states' own objects)
    shared = [{s: "".join(list(s)) for s in states} for _ in range(5)]
    cells = []
    for row, s in enumerate(rng.choice(states, 20_000)):
        kind = rng.integers(6)
        cells.append(shared[row // 4000][s] if kind < 3 else "".join(list(s)) if kind == 3
                     else 7 if kind == 4 else rng.choice([None, "NA", "?"]))
    grid = np.empty((20_000, 2), dtype=object)
    grid[:, 0], grid[:, 1] = cells, cells[::-1]
    frame = pd.DataFrame(grid, columns=["a", "b"], copy=False)
    assert not frame["a"].to_numpy().flags.c_contiguous
    index = {s: i for i, s in enumerate(states)}
    for name, column in [("a", cells), ("b", cells[::-1])]:
        expected = [MISSING if c in (None, "NA", "?") else index[str(c)] for c in column]
        assert encode_column(frame[name], states).tolist() == expected



def test_cell_identities_are_the_ids_and_matching_by_text_alone_agrees(monkeypatch):
    import bbn.core.data as data

    grid = np.array([["yes", "no"], ["no", "yes"], ["no", None]] * 1000, dtype=object)
    column = grid[:, 1]  # a strided view: read through a contiguous copy
    assert data._cell_identities(column).tolist() == [id(cell) for cell in column]
    by_identity = encode_column(pd.Series(column, name="x"), ("yes", "no"))
    monkeypatch.setattr(data, "_cell_identities", lambda column: None)  # another interpreter
    by_text = encode_column(pd.Series(column, name="x"), ("yes", "no"))
    assert by_identity.tolist() == by_text.tolist() == [1, 0, MISSING] * 1000


def test_cell_identities_that_are_not_the_ids_are_not_used(monkeypatch):
    # If a future numpy or CPython exported object cells differently, the spot check
    # notices and the cells are matched by text.
    import bbn.core.data as data

    column = np.array(["yes", "no", None] * 1000, dtype=object)
    real = np.frombuffer
    monkeypatch.setattr(data.np, "frombuffer", lambda *a, **k: real(*a, **k) + 8)
    assert data._cell_identities(column) is None
    codes = encode_column(pd.Series(column, name="x"), ("yes", "no"))
    assert codes.tolist() == [0, 1, MISSING] * 1000


def test_an_unknown_text_among_shared_objects_is_reported_at_its_row():
    column = pd.Series(["yes", "no"] * 5000 + ["maybe"] + ["no"] * 10, name="answer")
    with pytest.raises(DataError, match=r"column 'answer', row 10000: value 'maybe'.*"):
        encode_column(column, ("yes", "no"))
    codes = encode_column(column, ("yes", "no"), unknown="missing")
    assert codes[10_000] == MISSING and codes[:10_000].tolist() == [0, 1] * 5000


def test_learn_keeps_structure_and_states_and_the_network_is_queryable():
    net = two_node()
    learned = bbn.learn(net, TINY)
    assert not net.is_complete and learned.is_complete
    assert learned.variables == net.variables and learned.parents("B") == ("A",)
    assert learned.query("P(A=a1 | B=b2)") == pytest.approx(1.0)


# ---------------------------------------------------------------------- sampling
def test_sample_is_reproducible_categorical_and_matches_the_distribution(chair):
    frame = bbn.sample(chair, 200_000, seed=7)
    assert list(frame.columns) == list(chair.variables)
    assert list(frame["B"].cat.categories) == ["T", "F"]
    assert frame.equals(bbn.sample(chair, 200_000, seed=7))
    assert not frame.equals(bbn.sample(chair, 200_000, seed=8))
    n = len(frame)
    for event, p in (((frame["A"] == "T"), 25757 / 125000),
                     ((frame["C"] == "T") & (frame["A"] == "T"), 0.18272),
                     ((frame["B"] == "T"), 0.17676)):
        assert abs(event.mean() - p) < 5 * np.sqrt(p * (1 - p) / n)


def test_sample_never_draws_a_zero_probability_state():
    net = bbn.Network()
    net.add_variable("X", ["a", "b", "c", "d"], table=[0.5, 0.0, 0.5, 0.0])
    counts = bbn.sample(net, 10_000, seed=1)["X"].value_counts()
    assert counts["b"] == 0 and counts["d"] == 0 and counts.sum() == 10_000
    with pytest.raises(DataError, match="cannot draw -1 rows"):
        bbn.sample(net, -1)


def test_learning_recovers_alarm_tables_within_five_standard_errors(shared):
    net = bbn.load(shared / "networks" / "alarm.bif.gz")
    data = bbn.sample(net, 100_000, seed=2024)
    learned = bbn.learn(net, data)
    checked = 0
    for v in net.variables:
        family = net.parents(v) + (v,)
        codes = [data[u].cat.codes.to_numpy() for u in family]
        n = family_counts(codes, [net.cardinality(u) for u in family]).sum(axis=-1)
        p, q = net.cpt_array(v), learned.cpt_array(v)
        rows = n >= 30
        bound = 5 * np.sqrt(p * (1 - p) / np.maximum(n, 1)[..., None])
        assert np.all(np.abs(q - p)[rows] <= bound[rows]), v
        checked += int(rows.sum())
    assert checked > 100  # most of alarm's parent configurations occur ≥ 30 times


# ----------------------------------------------------------------------- command
STRUCTURE = """network tiny
variable A { a0, a1 }
variable B { b0, b1, b2 }
P(A)
P(B | A)
"""


def test_cli_learn_writes_the_learned_model(tmp_path, capsys):
    (tmp_path / "tiny.bn").write_text(STRUCTURE)
    TINY.to_csv(tmp_path / "tiny.csv", index=False)
    out = tmp_path / "learned.bn"
    code = main(["learn", str(tmp_path / "tiny.bn"), str(tmp_path / "tiny.csv"),
                 "--estimator", "bayes", "--ess", "6", "-o", str(out)])
    assert code == 0 and "wrote" in capsys.readouterr().out
    learned = bbn.load(out)
    np.testing.assert_allclose(learned.cpt_array("B"),
                               [[3 / 6, 2 / 6, 1 / 6], [1 / 4, 1 / 4, 2 / 4]])
    assert main(["learn", str(tmp_path / "tiny.bn"), str(tmp_path / "tiny.csv"),
                 "--estimator", "m-estimate", "--m", "2"]) == 0
    printed = bbn.loads(capsys.readouterr().out)
    np.testing.assert_allclose(printed.cpt_array("A"), [4 / 6, 2 / 6])


def test_cli_learn_reports_bad_data_without_traceback(tmp_path, capsys):
    (tmp_path / "tiny.bn").write_text(STRUCTURE)
    (tmp_path / "bad.csv").write_text("A,B\na0,b0\na2,b1\n")
    code = main(["learn", str(tmp_path / "tiny.bn"), str(tmp_path / "bad.csv"), "-o",
                 str(tmp_path / "out.bn")])
    err = capsys.readouterr().err
    assert code == 2 and "line 3" in err and "'a2'" in err and "Traceback" not in err
    assert not (tmp_path / "out.bn").exists()


def test_cli_learn_warns_about_unseen_parents(tmp_path, capsys):
    (tmp_path / "tiny.bn").write_text(STRUCTURE)
    (tmp_path / "few.csv").write_text("A,B\na0,b0\na0,b1\n")
    assert main(["learn", str(tmp_path / "tiny.bn"), str(tmp_path / "few.csv")]) == 0
    assert "warning" in capsys.readouterr().err


def test_integer_columns_read_through_a_shared_lookup_table():
    from bbn.core.data import MISSING, encode

    frame = pd.DataFrame({"a": [0, 2, 1, 2], "b": [2.0, float("nan"), 0.0, 1.0]},
                         index=["w", "x", "y", "z"])
    codes = encode(frame, ["a", "b"], [("0", "1", "2"), ("0", "1", "2")])
    assert codes.tolist() == [[0, 2], [2, MISSING], [1, 0], [2, 1]]
    with pytest.raises(bbn.DataError, match=r"column 'a', row 'x': value '7' is not a state"):
        encode(frame.assign(a=[0, 7, 1, 2]), ["a"], [("0", "1", "2")])
    ignored = encode(frame.assign(a=[0, 7, 1, 2]), ["a"], [("0", "1", "2")], unknown="missing")
    assert ignored[:, 0].tolist() == [0, MISSING, 1, 2]


# --------------------------------------------------------------------- structure
def test_learning_modules_import_each_other_at_the_top_without_a_circle():
    """learn → em → mixture_em, with the shared pieces (estimators, convergence) below
    them: every import between bbn.tasks.learning modules is a top-level one, and they form
    no circle (a function-local import would only hide one)."""
    import ast
    import graphlib
    from pathlib import Path

    folder = Path(bbn.__file__).parent / "tasks" / "learning"
    graph, local = {}, []
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        top = {id(node) for node in tree.body}
        graph[path.stem] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "bbn.tasks.learning."):
                target = node.module.split(".")[3]
                if id(node) in top:
                    graph[path.stem].add(target)
                elif path.stem != "command":  # the command line loads its work when run
                    local.append(f"{path.stem} → {target}")
    assert local == []
    order = list(graphlib.TopologicalSorter(graph).static_order())  # CycleError if circular
    assert order.index("estimators") < order.index("mixture") < order.index("missing") < (
        order.index("parameters"))



def test_a_category_no_row_uses_is_no_error():
    # a sample of 500 insurance rows has no 'SuperLuxury' car, yet pandas keeps the
    # category; states from the data leave it out, and the unused category is not a value
    column = pd.Series(pd.Categorical(["x", "y", "x"], categories=["x", "y", "z"]), name="A")
    assert encode_column(column, ("x", "y")).tolist() == [0, 1, 0]
    frame = pd.DataFrame({"A": column, "B": ["1", "2", "1"]})
    assert bbn.learn_structure(frame, method="tree").states("A") == ("x", "y")
    with pytest.raises(DataError, match=r"row 1: value 'y' is not a state of 'A'"):
        encode_column(column, ("x",))
