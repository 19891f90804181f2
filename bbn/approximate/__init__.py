"""Approximate inference: loopy belief propagation and sampling, for Bayesian and Markov
networks alike, on their :class:`~bbn.approximate.factor_graph.FactorGraph`."""
