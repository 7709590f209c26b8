"""The counterexample search: a database on which a passing answer and its reference disagree (issue 36).

A pass means the answer's rows equal the reference's on the fixture's rotations; an answer wrong in general
but right on these rows passes. For every pass (``--counterexamples``), the search edits the graded database
into neighbours (:mod:`.neighbours`, :mod:`.edits`) that keep every declared constraint and every rule the
fixture states (:mod:`.constraints`, :mod:`eval.sql.fixtures.rules`), writes each on the graded engine
(:mod:`.writing`), judges it exactly as the grader does (:mod:`.judging`, :mod:`eval.sql.grading.refuting`),
and shrinks one that refutes the pass to a few rows (:mod:`.shrinking`) written as a runnable script
(:mod:`.script`). :mod:`.search` runs the loop; :mod:`.budget` is how hard it looks. The package holds no
heavy import at its top, so a command line can check a budget without loading the search.
"""
