"""A fitted classifier's tables as HTML (its ``_repr_html_``): the class prior P(C),
then each feature's P(X | C) pivoted (a row per class, a column per state), or for a
Gaussian feature its mean and variance per class; the parameters before ``fit``.

>>> import bbn
>>> model = bbn.NaiveBayes().fit([["a"], ["b"], ["b"]], ["x", "y", "y"])
>>> page = fitted_html(model)
>>> page.count("<table"), "P(x0 | class)" in page
(2, True)
"""

from __future__ import annotations

import html

import bbn.core.html_tables as html_tables


def fitted_html(model) -> str:
    """The HTML of ``model``'s fitted tables (see the module docstring).

    Parameters
    ----------
    model : LikelihoodClassifier
        Fitted or not.

    Returns
    -------
    str

    Examples
    --------
    >>> import bbn
    >>> fitted_html(bbn.NaiveBayes(alpha=2.0))
    '<pre>NaiveBayes(alpha=2.0)</pre>'
    """
    net = getattr(model, "network_", None)
    if net is None:
        return f"<pre>{html.escape(repr(model))}</pre>"
    parts = [f"<p><b>{html.escape(repr(model))}</b>: {len(net.variables) - 1} features, "
             f"classes {html.escape(', '.join(map(str, net.states(model.class_variable_))))}"
             "</p>"]
    for v in net.variables:
        given = net.parents(v)
        caption = f"P({v} | {', '.join(given)})" if given else f"P({v})"
        if net.is_gaussian(v):
            mean, variance = net.gaussian_parameters(v)
            rows = ([*(c,), float(m), float(s)] for c, m, s in
                    zip(net.states(given[0]), mean.ravel(), variance.ravel()))
            parts.append(html_tables.table([given[0], "mean", "variance"], rows,
                                           caption=f"{v} | {given[0]}: Gaussian"))
            continue
        table = net.cpt(v)
        parts.append(html_tables.conditional(table.variables, table.states, table.values,
                                             caption=caption))
    return "".join(parts)
