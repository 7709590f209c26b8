"""The model matrix (:mod:`eval.tools.model_matrix`) as Markdown and as one self-contained HTML page.

Every text that came from a report (question ids, strata, model names, report paths, reasons) is
escaped: :func:`eval.core.markdown.escape` here, Jinja2's autoescape in ``matrix.html.j2``. The Markdown
is a list of sections, each a function of the matrix's JSON: a section is added by one line in
:data:`SECTIONS` (and, for the page, one ``{% include %}`` in the template).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.core.charts import rate_bar
from eval.core.html import render
from eval.sql.model.words import verdict_word


def shown(cell: dict[str, Any], expect: str) -> str:
    """A cell's word (:func:`eval.sql.model.words.verdict_word`): its verdict, or ``declined`` for a must-refuse
    question declined (by the generator or by the guard, whose verdict is an error)."""
    return verdict_word(cell["verdict"], expect, cell["good"])


def _who(run: dict[str, Any]) -> str:
    c = run.get("candidate") or {}
    return f"{md.escape(c.get('path'))} / {md.escape(c.get('model'))} (`{md.escape(run['report'])}`)"


def _header(result: dict[str, Any]) -> list[str]:
    fingerprints = (result.get("cohort") or {}).get("fingerprints") or {}
    out = [f"# Model matrix ({len(result['runs'])} runs, {result['corpus']['compared']} questions)", ""]
    for run in result["runs"]:
        cohort = f", cohort `{md.escape(fingerprints[run['label']])}`" if fingerprints.get(run["label"]) else ""
        out.append(f"{run['label']}: {_who(run)}{cohort}  ")
    out += ["", "A is the reference: safety flips and regressions are against A.", ""]
    out += [f"> {md.escape(n)}" for n in result["notes"]] + ([""] if result["notes"] else [])
    return out


def _flipped(result: dict[str, Any], flag: str, title: str, header: str) -> list[str]:
    rows = [q for q in result["questions"] if q["flag"] == flag]
    out = [f"## {title} ({len(rows)})", ""]
    if not rows:
        return out + ["None.", ""]
    table = []
    for q in rows:
        cells = {c["run"]: c for c in q["cells"]}
        who = ", ".join(f"{label} ({shown(cells[label], q['expect'])})" for label in q["flipped"])
        reason = cells[q["flipped"][0]]["reason"]
        table.append([md.escape(q["id"]), md.escape(q["stratum"]), who, md.escape(reason, 120)])
    return out + [md.table(["question", "stratum", header, "reason (first of them)"], table), ""]


def _safety(result: dict[str, Any]) -> list[str]:
    return _flipped(
        result, "safety_flip", "Safety flips: must-refuse questions A declined and others answered", "answered by"
    )


def _regressions(result: dict[str, Any]) -> list[str]:
    return _flipped(result, "regression", "Regressions: questions A passed and others did not", "not passed by")


def _rates(result: dict[str, Any]) -> list[str]:
    rows = [
        [
            r["label"],
            md.escape((r.get("candidate") or {}).get("model")),
            fig.pct(r["pass_rate"]),
            fig.interval(r["ci"]),
            fig.of(r["pass"], r["measured"]),
            fig.pct(r["refusal"]["recall"]),
            fig.interval(r["refusal"]["ci"]),
            fig.of(r["refusal"]["declined"], r["refusal"]["measured"]),
            fig.pct(r["over_refusals"]["rate"]),
            fig.interval(r["over_refusals"]["ci"]),
            fig.of(r["over_refusals"]["refused"], r["over_refusals"]["controls"]),
        ]
        for r in result["runs"]
    ]
    header = ["run", "model", "pass rate", fig.WILSON, "pass / measured", "refusal recall", fig.WILSON]
    header += ["declined / measured", "over-refusals", fig.WILSON, "refused / controls"]
    return ["## Each model", "", md.table(header, rows), "", fig.WILSON_NOTE + ".", ""]


def _pairs(result: dict[str, Any]) -> list[str]:
    c = result["correction"]
    rows = [
        [
            f"{p['x']} vs {p['y']}",
            fig.points(p["difference"]),
            str(p["x_pass_y_not"]),
            str(p["y_pass_x_not"]),
            f"{p['mcnemar_p']:.4g}",
            "n/a" if p["holm_p"] is None else f"{p['holm_p']:.4g}",
            p["reading"],
        ]
        for p in result["pairs"]
    ]
    return [
        f"## Pairwise differences ({c['family']} pairs, Holm-Bonferroni)",
        "",
        f"Y - X in pass rate on the answerable questions both measured; {c['test']}; a pair reads as different "
        f"when its Holm-adjusted p-value is below {c['alpha']} (at most a {c['alpha']:.0%} chance that any of "
        f"the {c['family']} pairs is called different when none is).",
        "",
        md.table(["X vs Y", "Y - X", "only X passed", "only Y passed", "McNemar p", "Holm p", "reading"], rows),
        "",
    ]


def _matrix(result: dict[str, Any]) -> list[str]:
    labels = [r["label"] for r in result["runs"]]
    rows = [
        [md.escape(q["id"]), md.escape(q["stratum"]), (q["flag"] or "").replace("_", " ")]
        + [shown(c, q["expect"]) for c in q["cells"]]
        for q in result["questions"]
    ]
    return [
        "## Every question",
        "",
        md.table(["question", "stratum", "flag", *labels], rows),
        "",
    ]


SECTIONS: tuple[Callable[[dict[str, Any]], list[str]], ...] = (
    _header,
    _safety,
    _regressions,
    _rates,
    _pairs,
    _matrix,
)
"""The Markdown, in order: safety flips and regressions first, the whole matrix last."""


def to_markdown(result: dict[str, Any]) -> str:
    return "\n".join(line for section in SECTIONS for line in section(result)).rstrip()


def to_html(result: dict[str, Any], scale: float = 200.0) -> str:
    """The matrix as one page (``eval.core.html``): each run's rate with its interval as a bar."""
    bars = [rate_bar(r, scale) for r in result["runs"]]
    return render("matrix.html.j2", result=result, bars=bars, scale=scale, shown=shown)
