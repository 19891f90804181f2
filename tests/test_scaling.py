"""Two soft findings fitted directly (bbn.questions.scaling.fit_scaling): each path
(one line, 2 × 2 closed form, 2 × m scalar Newton, three rows, larger, W_0 ⊥ W_1 taken
at the start, nearly proportional rows that must not be, boundary fits by blocks)
against plain iterative proportional fitting run to 1e-13, hand-derived tables, and
targets that cannot be met."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bbn.questions.scaling as scaling
from bbn.core.errors import ImpossibleEvidenceError
from bbn.questions.soft_fit import NEWTON_AFTER, TOLERANCE, fit_soft


def _plain(joint, q0, q1, sweeps=100_000, tolerance=1e-13):
    """Iterative proportional fitting (normalised T), swept until both margins are within
    ``tolerance``."""
    table = np.asarray(joint, dtype=float) / np.max(joint)
    for _ in range(sweeps):
        rows = table.sum(axis=1)
        table = table * np.divide(q0, rows, out=np.zeros_like(rows), where=rows > 0)[:, None]
        columns = table.sum(axis=0)
        table = table * np.divide(q1, columns, out=np.zeros_like(columns),
                                  where=columns > 0)[None, :]
        if abs(table.sum(axis=1) - q0).max() <= tolerance:
            break
    return table / table.sum()


def _fitted(joint, l0, l1):
    table = np.asarray(l0)[:, None] * np.asarray(joint) * np.asarray(l1)[None, :]
    return table / table.sum()


def _check(joint, q0, q1):
    """The direct fit exists, is the plain fit's limit, says its deviation truly, and
    gives λ with a largest of 1."""
    found = scaling.fit_scaling(np.asarray(joint).tolist(), list(q0), list(q1), TOLERANCE)
    assert found is not None
    l0, l1, steps, deviation = found
    assert max(l0) == 1.0 and max(l1) == 1.0 and steps >= 1
    table = _fitted(joint, l0, l1)
    true = max(abs(table.sum(axis=1) - q0).max(), abs(table.sum(axis=0) - q1).max())
    assert deviation <= TOLERANCE and abs(true - deviation) < 1e-14
    np.testing.assert_allclose(table, _plain(joint, q0, q1), atol=1e-9)
    return l0, l1, steps


def test_two_by_two_closed_form_by_hand():
    """J = [[2, 1], [1, 2]] to (1/2, 1/2) both ways: θ = 4 kept, x² = 4 (1/2 − x)² gives
    x = 1/3. J = [[0.4, 0.1], [0.1, 0.4]] to (1/2, 1/2), (0.7, 0.3): −15 x² + 19 x − 5.6 = 0,
    x = 7/15, T = [[7/15, 1/30], [7/30, 4/15]]."""
    l0, l1, steps = _check([[2.0, 1.0], [1.0, 2.0]], [0.5, 0.5], [0.5, 0.5])
    np.testing.assert_allclose(_fitted([[2, 1], [1, 2]], l0, l1),
                               [[1 / 3, 1 / 6], [1 / 6, 1 / 3]], atol=1e-15)
    assert steps == 1
    joint = [[0.4, 0.1], [0.1, 0.4]]
    l0, l1, _ = _check(joint, np.array([0.5, 0.5]), np.array([0.7, 0.3]))
    np.testing.assert_allclose(_fitted(joint, l0, l1),
                               [[7 / 15, 1 / 30], [7 / 30, 4 / 15]], atol=1e-15)


def test_two_by_two_with_a_negative_linear_term():
    """θ = 1/16, p = 0.8, q = 0.7: β = 0.2 − 0.7 + (0.8 + 0.7) / 16 < 0 (the other form of
    the root): x is the positive root of (15/16) x² + β x − 0.035 = 0."""
    joint = [[1.0, 4.0], [4.0, 1.0]]
    l0, l1, _ = _check(joint, np.array([0.8, 0.2]), np.array([0.7, 0.3]))
    beta = 0.2 - 0.7 + 1.5 / 16
    x = max(np.roots([15 / 16, beta, -0.035]))
    assert _fitted(joint, l0, l1)[0, 0] == pytest.approx(x, abs=1e-15)


def test_two_by_two_odds_ratio_one_is_the_product_of_the_targets():
    joint = np.outer([0.2, 0.8], [0.6, 0.4])
    q0, q1 = np.array([0.35, 0.65]), np.array([0.1, 0.9])
    l0, l1, steps = _check(joint, q0, q1)
    np.testing.assert_allclose(_fitted(joint, l0, l1), np.outer(q0, q1), atol=1e-15)
    assert steps == 1


def test_a_zero_cell_by_hand():
    """J = [[1, 1], [1, 0]]: T_11 = 0, so T_10 = 0.7 (row 1) and T = [[0.1, 0.2], [0.7, 0]];
    with column sums (0.7, 0.3) instead, T_00 must go to 0 too (the boundary)."""
    joint = [[1.0, 1.0], [1.0, 0.0]]
    l0, l1, _ = _check(joint, np.array([0.3, 0.7]), np.array([0.8, 0.2]))
    np.testing.assert_allclose(_fitted(joint, l0, l1), [[0.1, 0.2], [0.7, 0.0]], atol=1e-15)
    found = scaling.fit_scaling(joint, [0.3, 0.7], [0.7, 0.3], TOLERANCE)
    assert found is not None and found[3] <= TOLERANCE
    np.testing.assert_allclose(_fitted(joint, found[0], found[1]), [[0, 0.3], [0.7, 0]],
                               atol=1e-10)


def test_a_chain_of_blocks_on_the_boundary():
    """J lower triangular of ones, uniform targets: row 0 takes all of column 0, rows
    {0, 1} all of columns {0, 1}: T = I / 3, the blocks' λ set apart twice."""
    joint = np.tril(np.ones((3, 3)))
    third = [1 / 3] * 3
    found = scaling.fit_scaling(joint.tolist(), third, third, TOLERANCE)
    assert found is not None and found[3] <= TOLERANCE
    np.testing.assert_allclose(_fitted(joint, found[0], found[1]), np.eye(3) / 3, atol=1e-10)


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (2, 5), (4, 2), (3, 3), (3, 5), (5, 3),
                                   (4, 4), (4, 5), (5, 5)])
def test_each_path_meets_the_plain_fit(shape):
    """Random positive tables, some heavy-tailed, some with zeros that leave the fit
    inside (every cell of J > 0 can stay > 0): the plain fit's limit."""
    rng = np.random.default_rng(sum(shape))
    met = zeros = 0
    while met < 12:
        joint = rng.uniform(size=shape) ** (1 + 5 * (met % 3))
        q0 = 0.5 * rng.dirichlet(np.ones(shape[0])) + 0.5 / shape[0]
        q1 = 0.5 * rng.dirichlet(np.ones(shape[1])) + 0.5 / shape[1]
        if met % 4 == 3:
            joint[rng.uniform(size=shape) < 0.2] = 0.0
            if scaling._forced(joint.tolist(), q0.tolist(), q1.tolist()) != set():
                continue  # on the boundary or beyond: other tests
            zeros += not joint.all()
        _check(joint, q0, q1)
        met += 1
    assert zeros >= 1


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (3, 4), (5, 4)])
def test_independent_findings_in_one_step(shape):
    """W_0 ⊥ W_1 given e (J the outer product of its margins): λ = q / P(w | e), one step."""
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    joint = np.outer(rng.uniform(0.1, 1, shape[0]), rng.uniform(0.1, 1, shape[1]))
    q0, q1 = rng.dirichlet(np.ones(shape[0])), rng.dirichlet(np.ones(shape[1]))
    l0, l1, steps = _check(joint, q0, q1)
    assert steps == 1
    np.testing.assert_allclose(_fitted(joint, l0, l1), np.outer(q0, q1), atol=1e-15)


@pytest.mark.parametrize("shape", [(2, 2), (2, 5), (5, 2), (3, 3), (4, 3), (3, 6), (5, 5),
                                   (6, 4)])
def test_proportional_rows_are_fitted_at_the_start(shape):
    """Rows proportional (W_0 ⊥ W_1, up to rounding, as P(W_0, W_1 | e) gives them): one
    step, T = q_0 q_1ᵀ, the deviation T's own."""
    rng = np.random.default_rng(shape[0] * 11 + shape[1])
    for _ in range(5):
        joint = np.outer(rng.uniform(0.05, 1, shape[0]), rng.uniform(0.05, 1, shape[1]))
        q0 = rng.dirichlet(np.ones(shape[0]) * 0.5)
        q1 = rng.dirichlet(np.ones(shape[1]) * 0.5)
        l0, l1, steps = _check(joint, q0, q1)
        assert steps == 1
        np.testing.assert_allclose(_fitted(joint, l0, l1), np.outer(q0, q1), atol=1e-15)


def test_proportional_rows_with_zeros():
    """A zero row whose target is 0 drops out and the rest is fitted at the start; a zero
    column whose target is not 0 cannot be met (no direct fit: the caller sweeps)."""
    joint = np.outer([0.3, 0.0, 0.5, 0.2], [0.1, 0.6, 0.3])
    l0, l1, steps = _check(joint, np.array([0.2, 0.0, 0.5, 0.3]), np.array([0.3, 0.3, 0.4]))
    assert steps == 1 and l0[1] == 0.0
    column = np.outer([0.3, 0.5, 0.2], [0.1, 0.0, 0.3])
    assert scaling.fit_scaling(column.tolist(), [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]) is None


@pytest.mark.parametrize("shape", [(2, 3), (4, 2), (3, 3), (3, 5), (5, 4)])
@pytest.mark.parametrize("noise", [1e-7, 1e-5, 1e-3])
def test_nearly_proportional_rows_are_not_taken_at_the_start(shape, noise):
    """Rows proportional but for a relative noise the deviation at the start shows
    (above 0.1 tolerance): Newton's method goes on to the plain fit's limit."""
    rng = np.random.default_rng(int(shape[0] * 7 + shape[1] + 1 / noise) % 2**32)
    joint = np.outer(rng.uniform(0.05, 1, shape[0]), rng.uniform(0.05, 1, shape[1]))
    joint *= 1 + noise * rng.uniform(-1, 1, size=shape)
    q0, q1 = rng.dirichlet(np.ones(shape[0])), rng.dirichlet(np.ones(shape[1]))
    _, _, steps = _check(joint, q0, q1)
    assert steps > 1


@pytest.mark.parametrize("shape", [(3, 2), (2, 4), (3, 3), (4, 3), (3, 4), (5, 5)])
def test_a_proportional_first_two_by_two_does_not_decide(shape):
    """J's first 2 × 2 exactly proportional, a later cell off by 1e-4: the start is tried
    and its deviation refuses it; Newton's method goes on to the plain fit's limit."""
    rng = np.random.default_rng(shape[0] * 5 + shape[1])
    joint = np.outer(rng.uniform(0.05, 1, shape[0]), rng.uniform(0.05, 1, shape[1]))
    joint[-1, -1] *= 1 + 1e-4
    _, _, steps = _check(joint, rng.dirichlet(np.ones(shape[0])),
                         rng.dirichlet(np.ones(shape[1])))
    assert steps > 1


def test_rows_proportional_within_rounding_are_taken_with_their_own_deviation():
    """A noise of 1e-14 leaves T at the start within 0.1 tolerance: taken, and the
    deviation said is T's own (not 0)."""
    rng = np.random.default_rng(3)
    joint = np.outer(rng.uniform(0.05, 1, 4), rng.uniform(0.05, 1, 3))
    joint *= 1 + 1e-14 * rng.uniform(-1, 1, size=joint.shape)
    _, _, steps = _check(joint, rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(3)))
    assert steps == 1


def test_random_tables_against_the_plain_fit():
    """Tables 2..6 a side, positive or with zeros inside, skewed targets: every direct fit
    is the plain fit's limit and says its deviation truly."""
    rng = np.random.default_rng(19)
    met = 0
    for trial in range(300):
        shape = tuple(int(x) for x in rng.integers(2, 7, size=2))
        joint = rng.uniform(size=shape) ** rng.choice([1, 4, 10])
        if trial % 3 == 2:
            joint[rng.uniform(size=shape) < 0.25] = 0.0
        q0 = rng.dirichlet(np.ones(shape[0]) * rng.choice([0.2, 1.0, 5.0]))
        q1 = rng.dirichlet(np.ones(shape[1]) * rng.choice([0.2, 1.0, 5.0]))
        if scaling.fit_scaling(joint.tolist(), q0.tolist(), q1.tolist(), TOLERANCE) is None:
            continue  # on the boundary beyond the blocks, or no fit: the sweeps' cases
        if scaling._forced(joint.tolist(), q0.tolist(), q1.tolist()) != set():
            continue  # on the boundary: the plain fit's limit is too slow to compare
        _check(joint, q0, q1)
        met += 1
    assert met > 200


@pytest.mark.parametrize("case", range(2))
def test_hard_tables_do_not_cycle(case):
    """Skewed tables with zeros where the log-odds' steps went astray and steps taken
    alternately by the residual and by Φ went round in a cycle: Newton's own steps by
    Armijo's rule from there meet the plain fit."""
    joint, q0, q1 = [
        ([[0.6327117852023374, 0.005934126934574402, 0.0],
          [0.9519875249357493, 0.14557378075315364, 0.14942984842432616],
          [0.0, 0.0, 0.9610326268984419], [0.9277068205528577, 0.25785847796327266, 0.0]],
         [0.6647542004223743, 0.1294440964636833, 0.018497297692532305, 0.1873044054214101],
         [0.565368159367898, 0.3533994822172082, 0.08123235841489401]),
        ([[0.20042207071660012, 2.0030095995489756e-07, 2.3259511571702795e-06,
           0.07189368771615084, 1.277079063324005e-05, 0.0],
          [0.0, 0.002944650532370269, 0.29393996344885004, 0.0, 0.0, 0.001808188292343623],
          [9.612437578580067e-07, 0.02047918238032838, 0.0, 0.12398789120095427,
           0.5918376181867266, 2.0443071254227032e-08],
          [3.680202039215237e-05, 0.0, 0.0, 0.7747586478912621, 0.0, 0.0]],
         [0.0005445755135305852, 0.0004450263260895869, 0.9990101652679542,
          2.3289242568569943e-07],
         [0.00015383892135685412, 2.603457156496039e-08, 7.921842643588038e-10,
          1.060647128654434e-08, 0.00042313273380776965, 0.9994229909116082]),
    ][case]
    _check(np.array(joint), np.array(q0), np.array(q1))


def test_a_row_of_zeros_with_a_tiny_target_is_no_fit():
    """A row of J all 0 whose target is 1e-13 (below the flow condition's 1e-12): Newton's
    method on the three columns meets a zero at its start and leaves it to the sweeps."""
    joint = [[0.485, 0.042, 0.635, 0.131], [0.0, 0.0, 0.0, 0.0],
             [0.384, 0.033, 0.503, 0.103], [0.222, 0.019, 0.291, 0.060]]
    q0 = [0.0007313624669425539, 1.0624286481421368e-13, 1.1739177138377574e-07,
          0.9992685201411798]
    assert scaling.fit_scaling(joint, q0, [0.4216847491955546, 0.4352917999322487, 0.0,
                                           0.1430234508721969], TOLERANCE) is None


def test_badly_scaled_three_rows_need_no_cancellation():
    """Cells of 1e-19 and 1e-12 beside ones of 0.05, or a table of 1e-201 with a target
    of 1.5e-15: the Hessian's terms are positive sums (r_2 and det H too), so Newton's
    method meets the plain fit (it gave up here when they were differences)."""
    joint = [[0.0, 0.0, 0.03271379104547558],
             [9.251739929081035e-20, 0.0, 7.602260099534784e-12],
             [0.0, 0.04895689871338218, 2.8815188014262635e-19]]
    _check(np.array(joint), np.array([0.004834247569579623, 0.8070470389803243,
                                      0.18811871345009618]),
           np.array([0.5479361935146341, 0.13459872102312542, 0.3174650854622404]))
    rng = np.random.default_rng(8)
    tiny = rng.uniform(0.01, 1, size=(3, 6)) ** 3 * 1e-200
    q0 = np.array([0.0039, 1.0 - 0.0039 - 1.5e-15, 1.5e-15])
    found = scaling.fit_scaling(tiny.tolist(), q0.tolist(),
                                rng.dirichlet(np.ones(6)).tolist(), TOLERANCE)
    assert found is not None and found[3] <= TOLERANCE


def test_zero_targets_drop_their_states_and_one_line_is_direct():
    joint = np.array([[0.5, 1.0, 0.2], [0.3, 0.0, 0.4], [0.1, 0.2, 0.3]])
    q0, q1 = np.array([0.6, 0.0, 0.4]), np.array([0.5, 0.5, 0.0])
    l0, l1, _ = _check(joint, q0, q1)
    assert l0[1] == 0.0 and l1[2] == 0.0
    l0, l1, steps = _check(joint, np.array([0.0, 0.0, 1.0]), np.array([0.2, 0.3, 0.5]))
    assert steps == 1 and l0[:2] == [0.0, 0.0]


def test_the_scale_of_the_joint_does_not_matter():
    """P(W_0, W_1, e) may be far below 1 (a long network's evidence): the same λ."""
    rng = np.random.default_rng(5)
    for shape in ((2, 2), (2, 4), (3, 3), (4, 5)):
        joint = rng.uniform(size=shape)
        q0, q1 = rng.dirichlet(np.ones(shape[0])), rng.dirichlet(np.ones(shape[1]))
        one = scaling.fit_scaling(joint.tolist(), q0.tolist(), q1.tolist(), TOLERANCE)
        tiny = scaling.fit_scaling((joint * 1e-250).tolist(), q0.tolist(), q1.tolist(),
                                   TOLERANCE)
        np.testing.assert_allclose(tiny[0], one[0], rtol=1e-9)
        np.testing.assert_allclose(tiny[1], one[1], rtol=1e-9)


def test_targets_that_cannot_be_met_are_left_to_the_sweeps():
    """J copies W_0 (the identity) with other targets, or a row reaching only columns a
    target rules out: no direct fit; fit_soft says it (not converged) as before."""
    assert scaling.fit_scaling([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], [0.9, 0.1]) is None
    assert scaling.fit_scaling([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], [1.0, 0.0]) is None
    assert scaling.fit_scaling(np.eye(3).tolist(), [0.2, 0.3, 0.5], [0.3, 0.2, 0.5]) is None
    _, fit = fit_soft(np.eye(3), [np.array([0.2, 0.3, 0.5]), np.array([0.3, 0.2, 0.5])])
    assert not fit.converged and fit.sweeps == NEWTON_AFTER and fit.deviation > 0.05


# J (largest 1), q0, q1 of workload 18's "soft 2" cells (P(W_1, W_2 | e) on the shared
# networks): the slow ones for sweeping (4-15 sweeps) and a target with zeros
_BENCHMARK = [
    ([[1.0, 0.01482140856843939, 0.0014727282916092012],
      [0.04396632444955866, 0.02542154661034082, 0.03889163890419529],
      [0.026336562151650703, 0.0004513086571018227, 0.03193265068943897],
      [0.2733992639932142, 0.003122110640023088, 0.0007302729079317522]],
     [0.7, 0.1, 0.1, 0.1], [0.7, 0.15, 0.15]),  # alarm VENTALV, INTUBATION
    ([[0.06416629293070046, 0.20137482042013766, 1.0, 0.5818306536073502],
      [0.04081458327911938, 0.06783177779364315, 0.2648115002077736, 0.06483615305629728],
      [0.21539731242776974, 0.3554154470675429, 0.8054436154410372, 0.37856251636899413]],
     [0.7, 0.15, 0.15], [0.1, 0.1, 0.7, 0.1]),  # child LungParench, CardiacMixing
    ([[1.0, 0.7722799693637972], [0.03251311287606796, 0.07136348273595756],
      [0.11105807490201913, 0.12091535238937272],
      [0.0010854914141387412, 0.0006057664727970531]],
     [0.7, 0.1, 0.1, 0.1], [0.7, 0.3]),  # insurance ThisCarCost, AntiTheft
    ([[0.2502825333427169, 0.214578783998409, 0.48656859729375973, 0.3904552028834184],
      [1.0, 0.7486917589003824, 0.4666719179189814, 0.21280266303585568]],
     [0.3, 0.7], [0.1, 0.1, 0.7, 0.1]),  # insurance VehicleYear, Cushioning
    ([[0.55723337586444, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
     [1.0, 0.0, 0.0, 0.0], [0.3, 0.7]),  # insurance ThisCarCost, VehicleYear
    ([[1.0, 0.4913602286411285], [0.12685429349326716, 0.06627300126592882]],
     [0.7, 0.3], [0.7, 0.3]),  # andes SNode_155, SNode_131
]


@pytest.mark.parametrize("case", range(len(_BENCHMARK)))
def test_the_benchmark_pairs_converge(case):
    joint, q0, q1 = _BENCHMARK[case]
    _check(joint, np.array(q0), np.array(q1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights, fit = fit_soft(np.array(joint) * 3e-7, [np.array(q0), np.array(q1)])
    assert fit.converged and fit.deviation <= TOLERANCE and fit.sweeps < NEWTON_AFTER
    np.testing.assert_allclose(_fitted(joint, *weights), _plain(joint, q0, q1), atol=1e-9)


def test_a_direct_fit_never_claims_what_it_has_not_met():
    """Random tables with zeros and targets with zeros, many on the boundary or beyond:
    a direct fit's deviation is T's true one and within the tolerance; where there is
    none, fit_soft sweeps and reports the truth as well."""
    rng = np.random.default_rng(11)
    direct = 0
    for _ in range(150):
        shape = tuple(rng.integers(1, 6, size=2))
        joint = rng.uniform(size=shape) ** 4
        joint[rng.uniform(size=shape) < 0.3] = 0.0
        if not joint.any(axis=1).all() or not joint.any(axis=0).all():
            continue
        q0, q1 = rng.dirichlet(np.ones(shape[0])), rng.dirichlet(np.ones(shape[1]))
        if rng.uniform() < 0.3 and shape[0] > 1:
            q0[rng.integers(shape[0])] = 0.0
            q0 /= q0.sum()
        found = scaling.fit_scaling(joint.tolist(), q0.tolist(), q1.tolist(), TOLERANCE)
        if found is not None:
            direct += 1
            table = _fitted(joint, found[0], found[1])
            true = max(abs(table.sum(axis=1) - q0).max(), abs(table.sum(axis=0) - q1).max())
            assert found[3] <= TOLERANCE and abs(true - found[3]) < 1e-14
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                weights, fit = fit_soft(joint, [q0, q1])
            except ImpossibleEvidenceError:  # a finding on a state the other rules out
                continue
        table = _fitted(joint, *weights)
        true = max(abs(table.sum(axis=1) - q0).max(), abs(table.sum(axis=0) - q1).max())
        assert fit.converged == (true <= TOLERANCE + 1e-15)
    assert direct > 30


def _plain_many(joint, targets, sweeps=20_000, tolerance=1e-13):
    """Iterative proportional fitting of a k-way table (normalised T)."""
    table = np.asarray(joint, dtype=float) / np.max(joint)
    k = table.ndim
    for _ in range(sweeps):
        for a, q in enumerate(targets):
            m = table.sum(axis=tuple(b for b in range(k) if b != a))
            factor = np.divide(q * m.sum(), m, out=np.zeros_like(m), where=m > 0)
            table = table * factor.reshape((1,) * a + (-1,) + (1,) * (k - a - 1))
        table = table / table.sum()
        if max(abs(table.sum(axis=tuple(b for b in range(k) if b != a)) - q).max()
               for a, q in enumerate(targets)) <= tolerance:
            break
    return table


def _weighted(joint, weights):
    table = np.asarray(joint, dtype=float)
    for a, w in enumerate(weights):
        table = table * w.reshape((1,) * a + (-1,) + (1,) * (table.ndim - a - 1))
    return table / table.sum()


@pytest.mark.parametrize("shape", [(2, 2, 2), (3, 2, 4), (2, 3, 2, 2)])
def test_three_or_more_findings_by_newtons_method(shape):
    """k ≥ 3 soft findings: Newton's method on log λ meets the plain fit's limit in a
    few steps (sweeping took 11-17), zero targets and zero cells inside included."""
    rng = np.random.default_rng(len(shape) * 10 + shape[1])
    for trial in range(4):
        joint = rng.uniform(size=shape) ** (1 + 2 * trial)
        if trial == 3:
            joint[rng.uniform(size=shape) < 0.1] = 0.0
        targets = [0.5 * rng.dirichlet(np.ones(n)) + 0.5 / n for n in shape]
        if trial == 2:
            targets[1][0] = 0.0
            targets[1] /= targets[1].sum()
        found = scaling.fit_many(joint, targets, TOLERANCE)
        assert found is not None
        weights, steps, deviation = found
        assert deviation <= TOLERANCE and steps < 12
        assert all(w.max() == 1.0 for w in weights)
        table = _weighted(joint, weights)
        np.testing.assert_allclose(table, _plain_many(joint, targets), atol=1e-9)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            again, fit = fit_soft(joint, targets)
        assert fit.converged and fit.sweeps == steps
        np.testing.assert_allclose(_weighted(joint, again), table, atol=1e-15)


def test_three_findings_that_contradict_or_rule_a_state_out_are_said_as_before():
    """W_1 = W_2 = W_3 (a diagonal joint) with other targets: no fit, fit_soft sweeps and
    warns; a target on a state the joint rules out is an ImpossibleEvidenceError."""
    joint = np.zeros((2, 2, 2))
    joint[0, 0, 0] = joint[1, 1, 1] = 0.5
    targets = [np.array([0.5, 0.5]), np.array([0.9, 0.1]), np.array([0.5, 0.5])]
    assert scaling.fit_many(joint, targets) is None
    _, fit = fit_soft(joint, targets)
    assert not fit.converged and fit.deviation > 0.1
    ruled = np.ones((2, 2, 2))
    ruled[1] = 0.0
    with pytest.raises(ImpossibleEvidenceError, match="soft finding on B"):
        fit_soft(ruled, [np.array([0.5, 0.5])] * 3, names=["B", "C", "D"])
