"""The query language's questions about the graph and about information, answered.

    X _|_ Y | Z      d-separation (true/false, one active trail when false)
    H(X | Z, e)      entropy of the posterior, bits
    I(X; Y | Z, e)   mutual information, bits

Items of the evidence with a state are evidence ``e``; without one, conditioning
variables ``Z`` averaged over their posterior (see :mod:`bbn.questions.information`).

>>> import bbn
>>> net = bbn.load("models/chair.bn")
>>> bool(net.query("C _|_ S")), bool(net.query("C _|_ S | A"))
(True, False)
>>> round(net.query("H(C | A=T)"), 6)
0.509644
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bbn.questions.independence import Independence, independence
from bbn.questions.information import entropy, mutual_information

if TYPE_CHECKING:
    from bbn.model.network import Network
    from bbn.questions.language import Query


def answer_explained(net: Network, query: Query) -> Independence | float:
    """The answer to an ``IND``, ``H`` or ``I`` query (parsed by :mod:`bbn.questions.language`).

    Parameters
    ----------
    net : Network
    query : Query
        A parsed query of kind ``IND``, ``H`` or ``I``.

    Returns
    -------
    Independence or float
        The independence answer, or bits.

    Examples
    --------
    >>> import bbn
    >>> from bbn.questions.language import parse_query
    >>> net = bbn.load("models/chair.bn")
    >>> round(answer_explained(net, parse_query("I(C; W | A=T)")), 6)
    0.29848
    """
    x = [v for v, _ in query.targets]
    y = [v for v, _ in query.others]
    given = [v for v, s in query.evidence if s is None]
    if query.kind == "IND":
        return independence(net, x, y, given)
    evidence = {v: s for v, s in query.evidence if s is not None}
    if query.kind == "H":
        return entropy(net, x, evidence, given)
    return mutual_information(net, x, y, evidence, given)
