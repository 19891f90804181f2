"""Side-by-side benchmarks of bbn against pyAgrum and pgmpy (and scikit-learn for naive Bayes).

Not part of the test suite: run ``python -m tests.benchmarks.run [--quick]`` from the
repository root after ``pip install -e '.[bench]'``. See README.md beside this file.
"""
