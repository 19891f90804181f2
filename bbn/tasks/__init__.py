"""Layer 6, tasks: what is done with networks and data.

:mod:`bbn.tasks.learning` (tables from data: estimators, EM, sampling),
:mod:`bbn.tasks.structure` (the graph from data and expert knowledge),
:mod:`bbn.tasks.classification` (naive Bayes, one class per likelihood; ensembles;
prediction with any network), :mod:`bbn.tasks.trees` (decision trees),
:mod:`bbn.tasks.explain` (the working behind an answer, sensitivity) and
:mod:`~bbn.tasks.competition` (the UAI competition's tasks). Imports: core … io.
"""
