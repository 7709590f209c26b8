"""The command line of the harness: every entry point's argparse and ``main``, and nothing else.

Library modules (``eval.sql.*``, ``eval.turns.*``, ``eval.tools.compare_runs``, ...) hold what a run does;
the modules here turn a command line into calls of them and pick the exit code
(:mod:`eval.core.exit_codes`).
"""
