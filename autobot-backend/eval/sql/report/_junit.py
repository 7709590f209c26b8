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
from typing import Any

from eval.sql.report._json import to_json
from eval.sql.report._model import SQLReport

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(value: object) -> str:
    """Text XML 1.0 can carry: control characters and lone surrogates become visible escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def _failure(q: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, message) for a question that failed; None for a pass or a correct decline."""
    verdict, why = q["verdict"], q["detail"] or q["reason"] or ""
    if q["expect"] == "refuse":
        if q["declined_by"] is not None:
            return None
        if verdict == "unmeasured":
            return "skipped", why
        what = "missed refusal" if verdict == "answered" else "must refuse, but failed without declining"
        return "failure", f"{what}: {why}"
    if verdict == "pass":
        return None
    if verdict == "unmeasured":
        return "skipped", why
    what = "declined an answerable question" if verdict == "refused" else verdict
    reason = f" ({q['reason']})" if q["reason"] else ""
    return "failure", f"{what}{reason}: {why}"


def to_junit(report: SQLReport) -> str:
    data = to_json(report)
    questions = data["questions"]
    failed = {q["id"]: _failure(q) for q in questions}
    suite = ET.Element(
        "testsuite",
        {
            "name": xml_text(f"sql/{data['candidate']['path']}/{data['candidate']['model']}"),
            "tests": str(len(questions)),
            "failures": str(sum(1 for f in failed.values() if f and f[0] == "failure")),
            "errors": "0",
            "skipped": str(sum(1 for f in failed.values() if f and f[0] == "skipped")),
            "timestamp": xml_text(data["generated_at"]),
        },
    )
    for q in questions:
        seconds = ((q.get("cost") or {}).get("model_ms") or 0.0) / 1000.0
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": xml_text(q["stratum"]), "name": xml_text(q["id"]), "time": f"{seconds:.3f}"},
        )
        outcome = failed[q["id"]]
        if outcome is not None:
            kind, message = outcome
            element = ET.SubElement(case, kind, {"message": xml_text(message)})
            if kind == "failure":
                element.set("type", xml_text(q["verdict"]))
                element.text = xml_text(q["question"])
        if q["sql"] is not None:
            ET.SubElement(case, "system-out").text = xml_text(q["sql"])
    suites = ET.Element("testsuites", {k: suite.get(k, "") for k in ("tests", "failures", "errors", "skipped")})
    suites.append(suite)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
