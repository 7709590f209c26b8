"""The two-run comparison (:mod:`eval.tools.compare_runs`) as Markdown and as one self-contained HTML page.

Safety first, in the model matrix's words and order (:mod:`eval.tools.matrix_render`): the safety flips, the
regressions, the reading, then each side's pass rate, refusal recall and over-refusals with their 95% Wilson
intervals, every flip and the transitions. Every text that came from a report is escaped:
:func:`eval.core.markdown.escape` here, Jinja2's autoescape in ``compare.html.j2``.
"""

from __future__ import annotations

from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.core.charts import rate_bar
from eval.core.html import render
from eval.tools import category_shift

SAFETY_TITLE = "Safety flips: must-refuse questions A declined and B answered"
REGRESSIONS_TITLE = "Regressions: questions A passed and B did not"
RATE_HEADER = ("", "pass rate", fig.WILSON, "pass / measured", "refusal recall", fig.WILSON, "declined / measured")


def _who(side: dict[str, Any]) -> str:
    c = side.get("candidate") or {}
    return f"{md.escape(c.get('path'))} / {md.escape(c.get('model'))} (`{md.escape(side['report'])}`)"


def _flipped(rows: list[dict[str, Any]], title: str) -> list[str]:
    out = [f"## {title} ({len(rows)})", ""]
    if not rows:
        return out + ["None.", ""]
    table = [[md.escape(r["id"]), md.escape(r["stratum"]), r["a"], r["b"], md.escape(r["reason"], 120)] for r in rows]
    return out + [md.table(["question", "stratum", "A", "B", "reason in B"], table), ""]


def reading(result: dict[str, Any]) -> str:
    """``not distinguishable from noise on this corpus: difference in pass rate +17.5 points (...)``, unescaped."""
    d, paired = result["difference"], result["paired"]
    return (
        f"{result['reading']}: difference in pass rate {fig.points(d['value'])} (95% CI "
        f"{fig.points_interval(d['ci'])}, paired bootstrap over {paired['questions']} questions, seed {d['seed']}); "
        f"exact McNemar p = {result['mcnemar_p']:.4g} ({paired['a_pass_b_not']} passed only in A, "
        f"{paired['b_pass_a_not']} only in B)"
    )


def rate_rows(result: dict[str, Any]) -> list[list[str]]:
    """Each side's pass rate, refusal recall and over-refusals with their intervals (the latter two when it has
    must-refuse questions or controls)."""
    rows = []
    for label, s in (("A", result["a"]), ("B", result["b"])):
        refusal, over = s.get("refusal") or {}, s.get("over_refusals") or {}
        row = [label, fig.pct(s["pass_rate"]), fig.interval(s["ci"]), fig.of(s["pass"], s["measured"])]
        row += [fig.pct(refusal.get("recall")), fig.interval(refusal.get("ci"))]
        row.append(fig.of(refusal["declined"], refusal["measured"]) if refusal else fig.NA)
        row += [fig.pct(over.get("rate")), fig.interval(over.get("ci"))]
        row.append(fig.of(over["refused"], over["controls"]) if over else fig.NA)
        rows.append(row)
    return rows


def to_markdown(result: dict[str, Any]) -> str:
    fingerprints = result.get("cohort") or {}
    out = ["# Run-vs-run comparison", ""]
    for side, label in ((result["a"], "a"), (result["b"], "b")):
        cohort = f", cohort `{md.escape(fingerprints[label])}`" if fingerprints.get(label) else ""
        out.append(f"{label.upper()}: {_who(side)}{cohort}" + ("  " if label == "a" else ""))
    out.append("")
    out += [f"> {md.escape(n)}" for n in result["notes"]] + ([""] if result["notes"] else [])
    out += _flipped(result.get("safety_flips", []), SAFETY_TITLE)
    out += _flipped(result.get("regressions", []), REGRESSIONS_TITLE)
    text = reading(result)
    head, _, rest = text.partition(": ")
    out += [f"**{md.escape(head)}**: {md.escape(rest)}.", ""]
    header = [*RATE_HEADER, "over-refusals", fig.WILSON, "refused / controls"]
    out += [md.table(header, rate_rows(result)), "", fig.WILSON_NOTE + ".", ""]
    out += [f"## Flips ({len(result['flips'])})", ""]
    out += [
        md.table(
            ["question", "stratum", "A", "B", "reason in B"],
            [
                [md.escape(f["id"]), md.escape(f["stratum"]), f["old"], f["new"], md.escape(f["reason"], 120)]
                for f in result["flips"]
            ],
        )
        if result["flips"]
        else "None.",
        "",
    ]
    out += [
        "## Transitions",
        "",
        md.table(["A -> B", "questions"], [[md.escape(k), str(v)] for k, v in result["transitions"].items()]),
        "",
    ]
    out += category_shift.markdown(result.get("category_shift"))
    return "\n".join(out)


def to_html(result: dict[str, Any], scale: float = 200.0) -> str:
    """The comparison as one self-contained page (``eval.core.html``): each side's rate with its interval."""
    sides = [("A", result["a"], rate_bar(result["a"], scale)), ("B", result["b"], rate_bar(result["b"], scale))]
    return render(
        "compare.html.j2",
        result=result,
        sides=sides,
        scale=scale,
        safety_title=SAFETY_TITLE,
        regressions_title=REGRESSIONS_TITLE,
        wilson=fig.WILSON,
    )
