"""Tree-augmented naive Bayes: naive Bayes whose features may lean on one other feature.

The class C is a parent of every feature; the features form a tree besides (Friedman,
Geiger and Goldszmidt, 1997). Among all such networks the one of maximum likelihood has
as its feature tree the maximum spanning tree of the conditional mutual informations

    I(Xi; Xj | C) = Σ_{c,xi,xj} P(c, xi, xj) ln( P(c) P(c, xi, xj) / (P(c, xi) P(c, xj)) )

(natural logarithm, from the counts of (C, Xi, Xj)), oriented away from a root feature:
the log-likelihood is N Σ_i I(Xi; X_pa(i) | C) plus terms that do not depend on the tree.
A classifier then weighs every feature given the class and its tree parent,

    P(c | x) ∝ P(c) Π_i P(xi | c, x_pa(i)).

>>> import bbn
>>> rows = bbn.sample(bbn.load("models/chair.bn"), 2000, seed=3)
>>> net = bbn.learn_structure(rows, method="tan", target="C")
>>> [(v, net.parents(v)) for v in net.variables]       # the tree from S, the first feature
[('C', ()), ('S', ('C',)), ('W', ('C', 'S')), ('B', ('C', 'S')), ('A', ('C', 'B'))]
"""

from __future__ import annotations

import numpy as np

from bbn.core.errors import ModelError, suggest
from bbn.tasks.structure.chow_liu_trees import (
    conditional_mutual_information,
    require,
    spanning_tree,
)
from bbn.tasks.structure.dataset import CodedData
from bbn.tasks.structure.knowledge import Knowledge, arc_text
from bbn.tasks.structure.method import Settings, Structure


def tan_method(data: CodedData, knowledge: Knowledge, settings: Settings) -> Structure:
    """Tree-augmented naive Bayes as a structure method (``method="tan"``).

    The class is ``settings.target``; option ``root`` names the feature the tree points
    away from (by default the first feature that gives an orientation the knowledge
    allows). Feature pairs the knowledge allows in neither direction are left out (a
    forest), required arcs between features are put in first, and a pair whose count table
    would pass the memory limit is skipped (``statistics["skipped"]``). With
    ``max_parents=1`` no feature has room for a tree parent: the result is naive Bayes.

    Parameters
    ----------
    data : CodedData
        The coded rows.
    knowledge : Knowledge
        What the expert knows; it must allow class → every feature.
    settings : Settings
        Reads ``target`` and the option ``root``.

    Returns
    -------
    Structure
        The class without parents, every feature with the class and at most one feature
        as parents; ``statistics``: ``pairs`` (the conditional mutual informations
        computed), ``tree_information`` (Σ_i I(Xi; X_pa(i) | C) in nats) and ``skipped``.

    Raises
    ------
    ModelError
        Without a target, for a root that is no feature, or knowledge that refuses an arc
        class → feature, requires an arc into the class, or forbids every tree.

    Examples
    --------
    >>> import numpy as np
    >>> from bbn.tasks.structure.dataset import CodedData
    >>> codes = np.array([[0, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]])
    >>> data = CodedData(("C", "A", "B", "D"), (("0", "1"),) * 4, codes)
    >>> found = tan_method(data, Knowledge.build(data.variables), Settings(target=0))
    >>> found.parents          # A and B equal given C: the tree's heaviest edge
    ((), (0,), (0, 1), (0, 1))
    """
    settings.check_options("tan", ("root",))
    if settings.target is None:
        raise ModelError("method 'tan' needs the class variable: target='C' (the command "
                         "line's --target C)")
    names, target = data.variables, settings.target
    features = [i for i in range(len(names)) if i != target]
    root = settings.option("root", None)
    if root is not None and root not in [names[i] for i in features]:
        raise ModelError(f"the root {root!r} is no feature of {data.source} (the root of "
                         "the tree is a feature, not the class)"
                         f"{suggest(str(root), [names[i] for i in features])}")
    _check_class_arcs(knowledge, target, features)
    allowed = knowledge.allowed[np.ix_(features, features)].copy()
    if knowledge.max_parents is not None and knowledge.max_parents < 2:
        allowed[:] = False  # the class fills the only parent place: naive Bayes
    weights = np.full((len(features),) * 2, -np.inf)
    skipped = 0  # pairs whose count table exceeds the memory limit
    for a, i in enumerate(features):
        settings.report(f"tan: the pairs of {names[i]!r} ({a + 1} of {len(features)} "
                        "features)")
        for b in range(a + 1, len(features)):
            j = features[b]
            if not (allowed[a, b] or allowed[b, a]):
                continue
            if not data.fits((target, i, j)):
                skipped += 1  # never allocated: the pair stays out of the tree
                continue
            weights[a, b] = conditional_mutual_information(data.counts((target, i, j)))
    information = weights.copy()
    position = {v: a for a, v in enumerate(features)}
    allowed = require(weights, allowed, [(position[p], position[c])
                                         for p, c in knowledge.required if p != target])
    tree = spanning_tree(weights, allowed, position[names.index(root)] if root else 0,
                         [names[i] for i in features], fixed_root=root is not None)
    parents: list[tuple[int, ...]] = [()] * len(names)
    for a, i in enumerate(features):
        parents[i] = (target,) if tree[a] is None else (target, features[tree[a]])
    edges = [(min(a, p), max(a, p)) for a, p in enumerate(tree) if p is not None]
    return Structure(tuple(parents), statistics={
        "pairs": int(np.isfinite(information).sum()),
        "tree_information": float(sum(information[e] for e in edges
                                      if np.isfinite(information[e]))),
        "skipped": {"memory": skipped}})


def _check_class_arcs(knowledge: Knowledge, target: int, features: list[int]) -> None:
    """ModelError unless the knowledge allows class → every feature and no arc into the
    class (tree-augmented naive Bayes has both by definition)."""
    names = knowledge.variables
    for i in features:
        if not knowledge.allows(target, i):
            reason = ("forbidden" if (target, i) in knowledge.forbidden
                      else "against the tiers")
            raise ModelError(f"tree-augmented naive Bayes makes the class {names[target]!r} "
                             f"a parent of every feature, but the arc "
                             f"{arc_text(names[target], names[i])} is {reason}")
    into = sorted(p for p, c in knowledge.required if c == target)
    if into:
        raise ModelError(f"tree-augmented naive Bayes gives the class {names[target]!r} no "
                         f"parents, but the arc {arc_text(names[into[0]], names[target])} "
                         "is required")
    if knowledge.max_parents == 0:
        raise ModelError("tree-augmented naive Bayes makes the class a parent of every "
                         "feature, but max_parents=0")
    between = sorted(arc for arc in knowledge.required if target not in arc)
    if knowledge.max_parents == 1 and between:
        raise ModelError(f"with max_parents=1 the class {names[target]!r} is every feature's "
                         f"only parent, but the arc {arc_text(*(names[v] for v in between[0]))} "
                         "is required")
