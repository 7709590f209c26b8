"""Why each wrong answer is wrong (issues 25 and 34): a deterministic failure taxonomy, evidence first.

It sees only what a grader has: the two SQL texts, the two results, the question's declared order, decimals
and column order, the database's catalog (keys, types, NOT NULL) and, through a :class:`Probe`, the database
itself, where an edited candidate runs read-only; the categories and their precedence are
:class:`eval.sql.model.diagnosis.Category`.
"""

from eval.sql.diagnosis._catalog import Catalog, catalog_of
from eval.sql.diagnosis._diagnose import Probe, diagnose, diagnose_error
from eval.sql.diagnosis._results import Evidence, evidence

__all__ = ["Catalog", "Evidence", "Probe", "catalog_of", "diagnose", "diagnose_error", "evidence"]
