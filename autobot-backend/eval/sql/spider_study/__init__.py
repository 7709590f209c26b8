"""The project measured on real answers: Spider dev's databases and questions, published prediction sets, the
official exact-match results and the test-suite grader's verdicts, in the shared folder
(``../shared/data/spider-dev`` from the repository's root, never copied into it).

Every figure here comes from grading a set the way a user does (the import command, then ``python -m
eval.run`` in a fresh process): the diagnosis against a hand-labelled sample of real wrong answers
(:mod:`._agreement`), exact match against Spider's own script (:mod:`._exact`), suspect references by kind and the
precision of a hand-judged sample of them (:mod:`._suspects`, :mod:`._suspect_evidence`)::

    python -m eval.sql.spider_study diagnosis [--spider DIR]
    python -m eval.sql.spider_study exact-match [--update-docs | --check-docs]
    python -m eval.sql.spider_study suspects [--sample FILE] [--stub FILE] [--update-docs | --check-docs]
"""
