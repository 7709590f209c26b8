"""The SQL answer-accuracy suite: grade NL-to-SQL answers on execution, not on SQL text.

Its packages, lowest first: ``model`` (verdicts, outcomes, the run), ``rows`` (the disclosed
tolerance), ``corpus``, ``fixtures``, ``engines``, ``oracle`` (the self-check and its lints),
``grading`` (one run), ``gate`` (baselines, the gate, exit codes), ``report`` (the renderers),
``records`` (the dated record), ``bench`` (standard benchmarks) and ``near_miss`` (the study).
Each module is imported from where it lives: this package re-exports nothing, so importing one
module loads only what it needs.
"""
