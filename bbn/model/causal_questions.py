"""The causal questions of a Bayesian network: counterfactuals, adjustment sets and
identification (a mixin of :class:`bbn.Network`; each method one line into the question
layer).

Interventions themselves, ``do={X: x}``, are an argument of every question
(``net.posterior("Y", do={"X": "x"})``); the methods here ask about the graph or about
a world that did not happen:

* ``counterfactual``: P(Y_{X=x} | e) by the twin network of a structural causal model;
* ``adjustment_sets``: the minimal back-door (or front-door) sets Z, with which
  P(y | do(x)) = Σ_z P(y | x, z) P(z);
* ``identify``: P(y | do(x)) as a formula in what is observed, or why it is not.

>>> import bbn
>>> bbn.load("models/chair.bn").adjustment_sets("W", "A").backdoor
(('B',), ('C',))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bbn.core.lazy import reference
from bbn.questions import dispatch


class CausalQuestions:
    """Counterfactuals, adjustment sets and identification for :class:`bbn.Network`."""

    def counterfactual(self, variables: Sequence[str] | str, do: Mapping[str, str],
                       evidence: Mapping[str, str] | None = None, method="exact"):
        """P(Y_{X=x} | evidence): ``variables`` had ``do`` been set, given the factual
        ``evidence``, by the twin network of a structural causal model (``docs/causal.md``;
        in the query language ``P(Y_{X=x} | X=x', Y=y')``).

        Parameters
        ----------
        variables : str or sequence of str
        do, evidence : dict
            The intervention ``{X: x}`` of the counterfactual world; the factual findings.
        method : str or method value, default "exact"

        Returns
        -------
        Factor

        Examples
        --------
        >>> import bbn
        >>> net = bbn.Network("switch")
        >>> net.add_variable("U", ["off", "on"], table=[0.4, 0.6])
        >>> net.add_variable("Y", ["0", "1"], parents=["U"], table=[[1, 0], [0, 1]])
        >>> net.counterfactual("Y", do={"U": "off"}, evidence={"Y": "1"}).values.tolist()
        [1.0, 0.0]
        """
        return dispatch.counterfactual(self, variables, do, evidence, method)

    def adjustment_sets(self, treatment: str, outcome: str,
                        observed: Sequence[str] | None = None):
        """The minimal back-door sets of the effect of ``treatment`` on ``outcome`` among
        the ``observed`` variables, and the minimal front-door sets when there is no back
        door (see :func:`bbn.questions.adjustment.adjustment_sets`).

        Parameters
        ----------
        treatment, outcome : str
        observed : sequence of str, optional
            The measured variables (all by default).

        Returns
        -------
        Adjustment

        Examples
        --------
        >>> import bbn
        >>> bbn.load("models/chair.bn").adjustment_sets("W", "A").backdoor
        (('B',), ('C',))
        """
        return reference("bbn.questions.adjustment:adjustment_sets")(self, treatment, outcome,
                                                                    observed)

    def identify(self, outcome: Sequence[str] | str, do: Sequence[str] | str,
                 observed: Sequence[str] | None = None, simplify: bool = True):
        """P(outcome | do(X)) as a formula over the ``observed`` variables' distribution (the
        ID algorithm on the latent projection), or ``NotIdentifiable`` naming the
        confounding (see :func:`bbn.questions.identification.identify`).

        Parameters
        ----------
        outcome : str or sequence of str
        do : str or sequence of str
            The treatment X.
        observed : sequence of str, optional
            The measured variables (all by default); the others are latent.
        simplify : bool, default True
            The formula shortened (d-separation, the chain rule, sums of one head
            dropped); False: as the ID algorithm builds it. Both give the same numbers.

        Returns
        -------
        Formula
            Printable; ``evaluate(network or joint Factor)`` gives P(Y | do(X)).

        Examples
        --------
        >>> import bbn
        >>> print(bbn.load("models/chair.bn").identify("A", do="C", observed=["C", "A"]))
        P(A | do(C)) = P(A | C)
        """
        return reference("bbn.questions.identification:identify")(self, outcome, do, observed,
                                                                  simplify)
