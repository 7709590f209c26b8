"""JUnit XML for CI systems (``--junit PATH``): one ``testcase`` per question.

``classname`` is the stratum and ``name`` the question id. A ``wrong``, an ``error``, a decline of an
answerable question and an answered must-refuse question are ``failure`` (the message says why);
``unmeasured`` is ``skipped`` (the harness could not judge, which is not the candidate failing);
a pass or a correct decline is a plain ``testcase``. The candidate's SQL goes in ``system-out`` (on a
failing question, the reference after it). JUnit holds no tables: the run's figures (pass rate and its
interval, counts per verdict, the gate and each check, per stratum, database and difficulty, costs,
repeats, Spider's EM when asked, the corpus's lints counted by kind) are the testsuite's ``<properties>``, one
named value each, in the words of the other outputs; each suspect reference is a ``suspect_reference.N``
property and a line of its question's ``system-out``. Written with the standard library's ElementTree, which
escapes markup; characters XML 1.0 cannot carry at all (control characters a model may emit) are written as
``\\xNN`` text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from eval.core import figures as fig
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.render import _exact as exact
from eval.sql.render import _facts as facts
from eval.sql.render import _refuted as refuted
from eval.sql.render import _suspect as suspect

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(value: object) -> str:
    """Text XML 1.0 can carry: control characters and lone surrogates become visible escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def _failure(o: SQLOutcome) -> tuple[str, str] | None:
    """(kind, message) for a failing question (:attr:`SQLOutcome.failing`); None otherwise. An unmeasured
    one is ``skipped`` (:attr:`SQLRun.unmeasured`), any other a ``failure`` (:attr:`SQLRun.failing_measured`)."""
    if not o.failing:
        return None
    why = o.detail or o.reason or ""
    if not o.measured:
        return "skipped", why
    if o.expect == "refuse":
        what = "missed refusal" if o.verdict is Verdict.ANSWERED else "must refuse, but failed without declining"
        return "failure", f"{what}: {why}"
    what = "declined an answerable question" if o.verdict is Verdict.REFUSED else o.verdict.value
    reason = f" ({o.reason})" if o.reason else ""
    diagnosed = f"; why: {o.diagnosis.primary.value}: {o.diagnosis.line}" if o.diagnosis else ""
    return "failure", f"{what}{reason}: {why}{diagnosed}"


def properties(report: SQLRun) -> list[tuple[str, str]]:
    """The run's figures as the testsuite's ``<properties>``: JUnit has no tables, so each figure is a
    named value, written in the words and format of every other output (:mod:`eval.sql.render._facts`)."""
    s = report.summary
    out = [
        *((f"notice.{i}", notice) for i, notice in enumerate(facts.notices(report), 1)),
        ("pass_rate", f"{fig.pct(s['pass_rate'])} ({fig.of(s['pass'], s['measured'])}{facts.not_gradeable(report)})"),
        ("pass_rate_ci", f"{fig.interval(s['pass_rate_ci'])} ({fig.WILSON})"),
        *((f"verdict.{v}", str(s[v])) for v in facts.ANSWERABLE_COLUMNS),
        *((("lints", line),) if (line := facts.lint_line(report)) is not None else ()),
    ]
    if s["must_refuse"]:
        recalled = fig.of(s["correct_refusals"], s["must_refuse_measured"])
        arm = (
            f"{s['must_refuse']}: declined {s['correct_refusals']}, missed {s['missed_refusals']}, "
            f"unmeasured {s['must_refuse_unmeasured']}"
        )
        out += [
            ("refusal_recall", f"{fig.pct(s['refusal_recall'])} ({recalled})"),
            ("refusal_recall_ci", f"{fig.interval(s['refusal_recall_ci'])} ({fig.WILSON})"),
            ("must_refuse", arm),
            ("missed_refusals", ", ".join(report.missed_refusals) or "none"),
        ]
    if s["controls"]:
        out.append(("over_refusals", fig.of(s["over_refusals"], s["controls"])))
    g = report.gate_view
    out.append(("gate", facts.gate(report)))
    out += [(f"gate.{c['name']}", f"{facts.check_status(c['ok'])}: {c['detail']}") for c in g["checks"]]
    for key, _, _, counts in facts.breakdowns(report):
        out += [(f"{key}.{name}", facts.counts(c, facts.ANSWERABLE_COLUMNS)) for name, c in counts.items()]
    out += [(f"refusal_stratum.{k}", facts.counts(c, facts.REFUSAL_COLUMNS)) for k, c in report.refusal_strata.items()]
    out += [(f"control_stratum.{k}", facts.counts(c, facts.CONTROL_COLUMNS)) for k, c in report.control_strata.items()]
    lines = {
        "costs.latency": facts.latency(report.costs),
        "costs.tokens": facts.tokens(report.costs),
        "costs.efficiency": facts.efficiency(report.costs),
        "repeats": facts.repeats(report),
        "judge": facts.judge(report),
    }
    out += [(name, line) for name, line in lines.items() if line is not None]
    if report.repeats:
        out.append(("repeats.flaky", ", ".join(report.repeats["flaky"]) or "none"))
    out += [(f"diagnosis.{c}", str(n)) for c, n in report.diagnosis_counts["all"].items()]
    out += [(f"note.{i}", note) for i, note in enumerate(facts.interval_notes(report), 1)]
    return out + exact.junit_properties(report) + suspect.junit_properties(report) + refuted.junit_properties(report)


def _system_out(o: SQLOutcome) -> str | None:
    """The candidate's SQL; on a failing question, the reference after it (candidate first, as everywhere)."""
    if o.sql is None:
        return None
    if o.failing and o.reference_sql:
        return f"{o.sql}\n\n-- the reference:\n{o.reference_sql}"
    return o.sql


def to_junit(report: SQLRun) -> str:
    failed = {o.question_id: _failure(o) for o in report.outcomes}
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
        system_out = _system_out(o)
        flags = [f"-- suspect reference ({s['kind']}): {s['detail']}" for s in report.suspects_of(o.question_id)]
        if flags:
            system_out = "\n".join([*([system_out, ""] if system_out else []), *flags])
        if system_out is not None:
            ET.SubElement(case, "system-out").text = xml_text(system_out)
    suites = ET.Element("testsuites", {k: suite.get(k, "") for k in ("tests", "failures", "errors", "skipped")})
    suites.append(suite)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
