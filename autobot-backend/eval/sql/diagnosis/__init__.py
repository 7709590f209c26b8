"""Why each wrong answer is wrong (issue 25): a deterministic failure taxonomy, from a clause-by-clause
comparison of the candidate's and the reference's SQL and from the two result sets.

It sees only the two SQL texts, the two results and the question's declared order, decimals and
column order; the categories and their precedence are :class:`eval.sql.model.diagnosis.Category`.
"""

from eval.sql.diagnosis._diagnose import diagnose, diagnose_error
from eval.sql.diagnosis._results import Evidence, evidence

__all__ = ["Evidence", "diagnose", "diagnose_error", "evidence"]
