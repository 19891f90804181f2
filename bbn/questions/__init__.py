"""Layer 3, questions: the one path every question takes.

    text → :mod:`~bbn.questions.language` → :mod:`~bbn.questions.resolution`
         → :mod:`~bbn.questions.dispatch` → engine → :mod:`~bbn.questions.presentation`

The language reads a query (``P(C | A=T)``) without looking anything up; resolution is
the only place a user's names (variables, states, DataFrame columns and cells) are
checked and turned into indices; dispatch is the only switch on the question's kind,
method and form of evidence, with a registry of kinds where a new kind plugs in once;
presentation prints an answer as text or JSON. :mod:`~bbn.questions.estimates` holds the
approximate answers, :mod:`~bbn.questions.d_separation` and
:mod:`~bbn.questions.information` the questions about the graph and about information,
:mod:`~bbn.questions.partitions` evidence as Dask collections.
Imports: core, views, engines.
"""
