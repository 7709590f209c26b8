"""JUnit XML for CI systems (``--junit PATH``): one ``testcase`` per question.

``classname`` is the stratum and ``name`` the question id. A ``wrong``, an ``error``, a decline of an
answerable question and an answered must-refuse question are ``failure`` (the message says why);
``unmeasured`` is ``skipped`` (the harness could not judge, which is not the candidate failing);
a pass or a correct decline is a plain ``testcase``. The candidate's SQL goes in ``system-out`` (on a
failing question, the reference after it). JUnit holds no tables: the run's figures are the testsuite's
``<properties>``, one named value each, in the words of the other outputs, each section's
(:meth:`~eval.sql.sections.base.Section.junit`) in its place; a section adds to a question's failure message and
``system-out`` through :meth:`~eval.sql.sections.base.Section.junit_question` (the diagnosis, a suspect
reference). Written with the standard library's ElementTree, which escapes markup; characters XML 1.0 cannot
carry at all (control characters a model may emit) are written as ``\\xNN`` text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.sections import REGISTRY, laid_out
from eval.sql.sections.base import Format, Place, Property

PLACES = (Place.LEAD, Place.HEADLINE, Place.BODY, Place.END)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(value: object) -> str:
    """Text XML 1.0 can carry: control characters and lone surrogates become visible escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def _failure(o: SQLOutcome, why: str) -> tuple[str, str] | None:
    """(kind, message) for a failing question (:attr:`SQLOutcome.failing`); None otherwise. An unmeasured
    one is ``skipped`` (:attr:`SQLRun.unmeasured`), any other a ``failure`` (:attr:`SQLRun.failing_measured`);
    ``why``: what the sections add to an answerable question's message."""
    if not o.failing:
        return None
    said = o.detail or o.reason or ""
    if not o.measured:
        return "skipped", said
    if o.expect == "refuse":
        what = "missed refusal" if o.verdict is Verdict.ANSWERED else "must refuse, but failed without declining"
        return "failure", f"{what}: {said}"
    what = "declined an answerable question" if o.verdict is Verdict.REFUSED else o.verdict.value
    reason = f" ({o.reason})" if o.reason else ""
    return "failure", f"{what}{reason}: {said}{why}"


def properties(report: SQLRun) -> list[Property]:
    """The run's figures as the testsuite's ``<properties>``: each section's, in its place."""
    return [p for at, section in laid_out(Format.JUNIT, PLACES) for p in section.junit(report, at)]


def _system_out(o: SQLOutcome, flags: list[str]) -> str | None:
    """The candidate's SQL; on a failing question, the reference after it (candidate first, as everywhere); then
    what the sections flag."""
    text = o.sql
    if text is not None and o.failing and o.reference_sql:
        text = f"{o.sql}\n\n-- the reference:\n{o.reference_sql}"
    if flags:
        text = "\n".join([*([text, ""] if text else []), *flags])
    return text


def to_junit(report: SQLRun) -> str:
    suite = ET.Element(
        "testsuite",
        {
            "name": xml_text(f"sql/{report.candidate_path}/{report.model}"),
            "tests": str(len(report.outcomes)),
            "failures": str(len(report.failing_measured)),
            "errors": "0",
            "skipped": str(len(report.unmeasured)),
            "timestamp": xml_text(report.generated_at),
        },
    )
    props = ET.SubElement(suite, "properties")
    for name, value in properties(report):
        ET.SubElement(props, "property", {"name": xml_text(name), "value": xml_text(value)})
    for o in report.outcomes:
        parts = [s.junit_question(report, o) for s in REGISTRY]
        seconds = ((o.cost.model_ms if o.cost else None) or 0.0) / 1000.0
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": xml_text(o.stratum), "name": xml_text(o.question_id), "time": f"{seconds:.3f}"},
        )
        outcome = _failure(o, "".join(why for why, _ in parts))
        if outcome is not None:
            kind, message = outcome
            element = ET.SubElement(case, kind, {"message": xml_text(message)})
            if kind == "failure":
                element.set("type", xml_text(o.verdict.value))
                element.text = xml_text(o.question)
        system_out = _system_out(o, [line for _, lines in parts for line in lines])
        if system_out is not None:
            ET.SubElement(case, "system-out").text = xml_text(system_out)
    suites = ET.Element("testsuites", {k: suite.get(k, "") for k in ("tests", "failures", "errors", "skipped")})
    suites.append(suite)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
