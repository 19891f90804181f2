"""Layer 2, engines: answers on a view, over state *indices*.

:mod:`~bbn.engines.protocol` says what every engine answers (posterior, joint, log weight,
MAP, MPE, batches of cases) on questions whose names are already resolved;
:mod:`bbn.engines.exact` answers exactly (variable elimination compiled into plans once
per question shape, junction trees), :mod:`bbn.engines.approximate` approximately (loopy
belief propagation, likelihood weighting, importance sampling, Gibbs, max-product). An
engine never imports a model and never looks up a user's name. Imports: core, views.
"""
