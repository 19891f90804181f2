"""The ``bbn`` command line.

:mod:`~bbn.apps.cli.main` holds the parser and runs one subcommand; each subcommand is a
module named for it (``query``, ``explain``, ``info``, ``check``, ``convert``,
``render``, ``learn``, ``sample``, ``classify``, ``structure``, ``tree``, ``serve``, and
``uai_competition`` for ``bbn uai``) with ``add_arguments(parser)`` and ``run(args)``,
imported only when its command runs. :mod:`~bbn.apps.cli.options` holds the options
several commands share and reads their model; :mod:`~bbn.apps.cli.exit_codes` the exit
codes.
"""
