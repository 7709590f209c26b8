"""JUnit XML for CI systems (``--junit PATH``): one ``testcase`` per question.

``classname`` is the stratum and ``name`` the question id. A ``wrong``, an ``error``, a decline of an
answerable question and an answered must-refuse question are ``failure`` (the message says why);
``unmeasured`` is ``skipped`` (the harness could not judge, which is not the candidate failing);
a pass or a correct decline is a plain ``testcase``. The candidate's SQL goes in ``system-out``.
Written with the standard library's ElementTree, which escapes markup; characters XML 1.0 cannot
carry at all (control characters a model may emit) are written as ``\\xNN`` text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.model.run import SQLRun

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(value: object) -> str:
    """Text XML 1.0 can carry: control characters and lone surrogates become visible escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def _failure(o: SQLOutcome) -> tuple[str, str] | None:
    """(kind, message) for a failing question (:attr:`SQLOutcome.failing`); None otherwise."""
    if not o.failing:
        return None
    why = o.detail or o.reason or ""
    if o.verdict is Verdict.UNMEASURED:
        return "skipped", why
    if o.expect == "refuse":
        what = "missed refusal" if o.verdict is Verdict.ANSWERED else "must refuse, but failed without declining"
        return "failure", f"{what}: {why}"
    what = "declined an answerable question" if o.verdict is Verdict.REFUSED else o.verdict.value
    reason = f" ({o.reason})" if o.reason else ""
    return "failure", f"{what}{reason}: {why}"


def to_junit(report: SQLRun) -> str:
    failed = {o.question_id: _failure(o) for o in report.outcomes}
    suite = ET.Element(
        "testsuite",
        {
            "name": xml_text(f"sql/{report.candidate_path}/{report.model}"),
            "tests": str(len(report.outcomes)),
            "failures": str(sum(1 for f in failed.values() if f and f[0] == "failure")),
            "errors": "0",
            "skipped": str(sum(1 for f in failed.values() if f and f[0] == "skipped")),
            "timestamp": xml_text(report.generated_at),
        },
    )
    for o in report.outcomes:
        seconds = ((o.cost.model_ms if o.cost else None) or 0.0) / 1000.0
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": xml_text(o.stratum), "name": xml_text(o.question_id), "time": f"{seconds:.3f}"},
        )
        outcome = failed[o.question_id]
        if outcome is not None:
            kind, message = outcome
            element = ET.SubElement(case, kind, {"message": xml_text(message)})
            if kind == "failure":
                element.set("type", xml_text(o.verdict.value))
                element.text = xml_text(o.question)
        if o.sql is not None:
            ET.SubElement(case, "system-out").text = xml_text(o.sql)
    suites = ET.Element("testsuites", {k: suite.get(k, "") for k in ("tests", "failures", "errors", "skipped")})
    suites.append(suite)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
