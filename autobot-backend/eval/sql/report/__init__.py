"""The SQL suite's run report: the model of one run (:class:`SQLReport`) and its renderings.

* :func:`to_json`: the JSON other tools read (spec section 7; its keys are a contract);
* :func:`to_markdown`: what a developer acts on first (the 2x2, verdicts, regressions), then
  every failing question.
"""

from eval.sql.report._json import to_json
from eval.sql.report._markdown import to_markdown
from eval.sql.report._model import Classified, SQLReport

__all__ = ["Classified", "SQLReport", "to_json", "to_markdown"]
