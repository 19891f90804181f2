"""``bbn info``, ``bbn explain`` and ``bbn render`` on conditional linear Gaussian networks:
the regressions shown and derived, with hand-derived numbers equal to ``bbn query``'s."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bbn
from bbn.apps.cli.main import main
from bbn.core.errors import QueryError


def _normal(x: float, mean: float, variance: float) -> float:
    return math.exp(-0.5 * (x - mean) ** 2 / variance) / math.sqrt(2 * math.pi * variance)


@pytest.fixture
def chain() -> bbn.Network:
    """C → x → y: x | C ~ N(0, 1) or N(2, 0.5); y | x ~ N(1 + 2x, 0.5)."""
    net = bbn.Network("t")
    net.add_variable("C", ["a", "b"], table=[0.4, 0.6])
    net.add_gaussian_variable("x", ["C"], mean=[0.0, 2.0], variance=[1.0, 0.5])
    net.add_gaussian_variable("y", ["x"], mean=1.0, variance=0.5, weights={"x": 2.0})
    return net


@pytest.fixture
def chain_file(chain, tmp_path):
    path = tmp_path / "lg.bn"
    bbn.save(chain, path)
    return str(path)


@pytest.fixture
def two_parents() -> bbn.Network:
    """z's regression depends on B (three states) and on u | A and w | B: λ over (A, B)."""
    net = bbn.Network("h2")
    net.add_variable("A", ["a0", "a1"], table=[0.3, 0.7])
    net.add_variable("B", ["b0", "b1", "b2"], parents=["A"],
                     table=[[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    net.add_gaussian_variable("u", ["A"], mean=[1.0, -1.0], variance=[0.5, 2.0])
    net.add_gaussian_variable("w", ["B"], mean=[0.0, 1.0, 3.0], variance=[1.0, 0.4, 0.8])
    net.add_gaussian_variable("z", ["u", "w", "B"], mean=[0.5, 0.0, -0.5],
                              variance=[0.3, 0.6, 0.9],
                              weights={"u": [1.0, 2.0, -1.0], "w": [0.5, 0.5, 1.5]})
    return net


def test_info_lists_every_gaussian_and_says_what_the_joint_count_means(capsys, chain_file):
    assert main(["info", chain_file]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[5:10] == ["x | C:", "  C=a: N(0, 1)", "  C=b: N(2, 0.5)", "y | x:",
                         "  N(1 + 2·x, 0.5)"]
    # C: 1; x: 2 means + 2 variances; y: mean, weight, variance
    assert out[10] == ("free parameters: 8 (a full joint table over the 1 discrete variable "
                       "needs 1)")


def test_info_of_a_purely_continuous_network(capsys, tmp_path):
    net = bbn.Network("g")
    net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    net.add_gaussian_variable("y", ["x"], mean=1.0, variance=0.5, weights={"x": -2.0})
    bbn.save(net, tmp_path / "g.bn")
    assert main(["info", str(tmp_path / "g.bn")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-5:] == ["x:", "  N(0, 1)", "y | x:", "  N(1 − 2·x, 0.5)", "free parameters: 5"]


def test_explain_discrete_target_with_a_continuous_finding(chain, chain_file, capsys):
    # p(y=1.5 | C) = N(1.5; 1 + 2·μ_C, 0.5 + 4·σ²_C): N(1.5; 1, 4.5) and N(1.5; 5, 2.5)
    lam_a, lam_b = _normal(1.5, 1.0, 4.5), _normal(1.5, 5.0, 2.5)
    expected = 0.4 * lam_a / (0.4 * lam_a + 0.6 * lam_b)
    derivation = bbn.explain(chain, "P(C | y=1.5)")
    assert derivation.result.normalize().values[0] == pytest.approx(expected, abs=1e-12)
    assert chain.query("P(C | y=1.5)").values[0] == pytest.approx(expected, abs=1e-12)
    assert round(expected, 6) == 0.848497
    text = derivation.to_text()
    assert "Var[y | C=a] = 0.5 + 2²·1 = 4.5" in text
    assert f"p(y=1.5 | C=a) = N(1.5; 1, 4.5) = {lam_a:.6g}" in text
    assert f"p(y=1.5 | C=b) = N(1.5; 5, 2.5) = {lam_b:.6g}" in text
    assert text.splitlines()[0] == "P(C | y=1.5)"
    assert text.splitlines()[-2].endswith("= 0.848497")
    assert main(["explain", chain_file, "P(C=a | y=1.5)"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("= 0.848497")


def test_explain_continuous_target_is_the_mixture(chain):
    derivation = bbn.explain(chain, "P(x | y=1.5)")
    # C=a: μ = 0 + 2/4.5·(1.5 − 1) = 2/9, σ² = 1 − 4/4.5 = 1/9; C=b: 2 + 1/2.5·(−3.5) = 0.6,
    # 0.5 − 1/2.5 = 0.1
    lam_a, lam_b = _normal(1.5, 1.0, 4.5), _normal(1.5, 5.0, 2.5)
    w = 0.4 * lam_a / (0.4 * lam_a + 0.6 * lam_b)
    hand = [(w, 2 / 9, 1 / 9), (1 - w, 0.6, 0.1)]
    np.testing.assert_allclose(derivation.components, hand, atol=1e-12)
    normal = chain.posterior(["x"], evidence={"y": 1.5})
    np.testing.assert_allclose(np.array(derivation.components).T, list(normal.components),
                               atol=1e-9)
    mean = w * 2 / 9 + (1 - w) * 0.6
    variance = w * (1 / 9 + (2 / 9) ** 2) + (1 - w) * (0.1 + 0.36) - mean ** 2
    assert normal.mean == pytest.approx(mean, abs=1e-9)
    assert normal.variance == pytest.approx(variance, abs=1e-9)
    text = derivation.to_text()
    assert "C=a: μ = 0 + 2 / 4.5 · (1.5 − 1) = 0.222222, σ² = 1 − 2² / 4.5 = 0.111111" in text
    assert f"mean = Σ_d P(d | e) μ_d = {mean:.6g}; variance" in text
    assert f"= {variance:.6g} (moments matched)" in text
    prior = bbn.explain(chain, "P(x)")
    np.testing.assert_allclose(prior.components, [(0.4, 0.0, 1.0), (0.6, 2.0, 0.5)])
    assert "variance = Σ_d P(d | e) (σ²_d + μ_d²) − mean² = 1.66" in prior.to_text()


def test_explain_with_two_discrete_variables_and_several_findings(two_parents):
    net = two_parents
    for question in ("P(A | z=1.2)", "P(B | z=1.2, u=0.3)", "P(A, B | z=-0.4)",
                     "P(B=b2 | z=0)", "P(A=a1, B=b0 | z=1.2, w=2)"):
        derivation = bbn.explain(net, question)
        answer = net.query(question)
        if isinstance(answer, float):
            assert derivation.numerator / derivation.total == pytest.approx(answer, abs=1e-12)
        else:
            np.testing.assert_allclose(derivation.result.normalize().values, answer.values,
                                       atol=1e-12)
    # a brute-force check of λ over (A, B) for z=1.2 alone: z | A, B is normal with
    # mean c_B + b_uB μ_A + b_wB m_B, variance s_B + b_uB² v_A + b_wB² r_B
    table = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]) * np.array([[0.3], [0.7]])
    mu_u, v_u = [1.0, -1.0], [0.5, 2.0]
    m_w, r_w = [0.0, 1.0, 3.0], [1.0, 0.4, 0.8]
    c, s, bu, bw = [0.5, 0.0, -0.5], [0.3, 0.6, 0.9], [1.0, 2.0, -1.0], [0.5, 0.5, 1.5]
    joint = np.array([[table[a, b] * _normal(1.2, c[b] + bu[b] * mu_u[a] + bw[b] * m_w[b],
                                             s[b] + bu[b] ** 2 * v_u[a] + bw[b] ** 2 * r_w[b])
                       for b in range(3)] for a in range(2)])
    derivation = bbn.explain(net, "P(A | z=1.2)")
    np.testing.assert_allclose(derivation.result.normalize().values,
                               joint.sum(1) / joint.sum(), atol=1e-12)
    assert "virtual child λ(z) of A, B" in derivation.to_text()
    # bbn query's P(B=b2 | z) was once the discrete engine's (z treated as a leaf): 0.118
    assert net.query("P(B=b2 | z=1.2)") == pytest.approx(joint.sum(0)[2] / joint.sum(),
                                                          abs=1e-12)
    assert net.query("P(A=a1, B=b2 | z=1.2)") == pytest.approx(joint[1, 2] / joint.sum(),
                                                                abs=1e-12)
    for question, target, evidence in (("P(u | z=1.2)", "u", {"z": 1.2}),
                                       ("P(w | z=1.2, A=a1)", "w", {"z": 1.2, "A": "a1"}),
                                       ("P(u | z=1.2, w=0.5)", "u", {"z": 1.2, "w": 0.5})):
        derivation = bbn.explain(net, question)
        normal = net.posterior([target], evidence=evidence)
        np.testing.assert_allclose(np.array(derivation.components).T, list(normal.components),
                                   atol=1e-9)


def test_formats(chain):
    derivation = bbn.explain(chain, "P(x | y=1.5)")
    markdown = derivation.to_markdown()
    assert markdown.startswith("**P(x \\| y=1.5)**")
    assert "The continuous target" in markdown and "N(1.5; 1, 4.5)" in markdown
    latex = derivation.to_latex()
    assert r"\item \textbf{The regressions}" in latex
    assert r"\item \textbf{The continuous target}" in latex
    assert latex.count(r"\begin{enumerate}") == latex.count(r"\end{enumerate}") == 1


@pytest.mark.parametrize("question, message", [
    ("P(x)", None),  # once a KeyError traceback from engine.plan
    ("P(x, C)", "one continuous target alone, not x, C"),
    ("MAP(C | y=1.5)", "explain derives P"),
    ("P(C | do(x=1))", "do\\(x=...\\) on the Gaussian x"),
    ("P(y=1)", "'y' is continuous"),
])
def test_what_explain_does_not_derive_is_a_query_error(chain, chain_file, capsys, question,
                                                       message):
    if message is None:
        assert main(["explain", chain_file, question]) == 0
        assert "C=b: μ = 2, σ² = 0.5, weight P(C=b) = 0.6" in capsys.readouterr().out
        return
    with pytest.raises(QueryError, match=message):
        bbn.explain(chain, question)
    assert main(["explain", chain_file, question]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("bbn explain: ")


def test_render_labels_each_gaussian_with_its_regression(chain_file, tmp_path, capsys):
    out = tmp_path / "lg.gv"
    assert main(["render", chain_file, "-o", str(out)]) == 0
    dot = out.read_text()
    assert ('x [label=<<B>x</B><BR/><FONT POINT-SIZE="10">C=a: N(0, 1)</FONT><BR/>'
            '<FONT POINT-SIZE="10">C=b: N(2, 0.5)</FONT>>') in dot
    assert '<FONT POINT-SIZE="10">N(1 + 2·x, 0.5)</FONT>' in dot
    assert main(["render", chain_file, "--tables", "-o", str(out)]) == 0
    dot = out.read_text()
    assert ('<TR><TD><FONT POINT-SIZE="10">C=a: N(0, 1)</FONT></TD></TR>'
            '<TR><TD><FONT POINT-SIZE="10">C=b: N(2, 0.5)</FONT></TD></TR>') in dot


def test_a_far_finding_is_weighed_in_logs(chain):
    # N(80; 5, 2.5) underflows to 0; λ(b)/λ(a) = exp(log N(80; 5, 2.5) − log N(80; 1, 4.5))
    log_ratio = (-0.5 * math.log(2 * math.pi * 2.5) - 75 ** 2 / 5
                 + 0.5 * math.log(2 * math.pi * 4.5) + 79 ** 2 / 9)
    expected = 0.6 * math.exp(log_ratio) / (0.4 + 0.6 * math.exp(log_ratio))
    derivation = bbn.explain(chain, "P(C=b | y=80)")
    assert derivation.numerator / derivation.total == pytest.approx(expected, rel=1e-9)
    assert chain.query("P(C=b | y=80)") == pytest.approx(expected, rel=1e-9)
    assert expected > 0


def test_one_normal_is_the_conditioning_formula_alone(chain, tmp_path):
    # P(x | C=a, y=1.5): μ = 0 + 2/4.5·(1.5 − 1) = 2/9, σ² = 1 − 4/4.5 = 1/9
    derivation = bbn.explain(chain, "P(x | C=a, y=1.5)")
    np.testing.assert_allclose(derivation.components, [(1.0, 2 / 9, 1 / 9)], atol=1e-12)
    normal = chain.posterior(["x"], evidence={"C": "a", "y": 1.5})
    assert (normal.mean, normal.variance) == pytest.approx((2 / 9, 1 / 9), abs=1e-12)
    # a linear Gaussian network without discrete variables: x ~ N(0, 1), y | x ~ N(1 − 2x, 0.5)
    # E[x | y=2] = 0 − 2/4.5·(2 − 1) = −4/9, Var = 1 − 4/4.5 = 1/9
    net = bbn.Network("g")
    net.add_gaussian_variable("x", mean=0.0, variance=1.0)
    net.add_gaussian_variable("y", ["x"], mean=1.0, variance=0.5, weights={"x": -2.0})
    derivation = bbn.explain(net, "P(x | y=2)")
    np.testing.assert_allclose(derivation.components, [(1.0, -4 / 9, 1 / 9)], atol=1e-12)
    normal = net.posterior(["x"], evidence={"y": 2.0})
    assert (normal.mean, normal.variance) == pytest.approx((-4 / 9, 1 / 9), abs=1e-12)
    text = derivation.to_text()
    assert "x: μ = 0 − 2 / 4.5 · (2 − 1) = -0.444444, σ² = 1 − (-2)² / 4.5 = 0.111111" in text
    assert text.splitlines()[0] == "P(x | y=2)"
    assert derivation.to_latex().count(r"\item") == 2
