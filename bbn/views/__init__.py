"""Layer 1, views: what an engine reads of a model.

:mod:`~bbn.views.compiled` holds ``CompiledNetwork``, the immutable view of one revision
of a network (variables, states, parents, cardinalities, tables, Gaussian leaves),
built once per revision by the model; :mod:`~bbn.views.factor_graph` the factor graph of
a view or of a Markov network's factors, by index, which the approximate engines read.
Imports: core.
"""
