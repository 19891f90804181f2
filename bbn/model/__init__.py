"""Layer 4, model: what a network *is*.

:mod:`~bbn.model.network` (``Network``: variables as typed records
(:mod:`~bbn.model.variables`), the DAG (:mod:`~bbn.model.dag`), conditional tables
(:mod:`~bbn.model.conditional_tables`), Gaussian leaves (:mod:`~bbn.model.gaussian_leaves`),
a revision and its compiled view) and :mod:`~bbn.model.markov` (``MarkovNetwork``). Each
question method of a model is one line into :mod:`bbn.questions.dispatch`.
Imports: core, views, engines, questions.
"""
