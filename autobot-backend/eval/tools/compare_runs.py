"""``python -m eval.compare BASE.json NEW.json``: is B better than A, and by more than noise?

Two JSON reports of the SQL suite (any two candidates, models or commits) on the same corpus
digest. Per question: every flip, by id, and the counts of each old -> new transition. Per run:
each side's pass rate with its 95% Wilson interval; the difference on the answerable questions
both sides measured, with a paired bootstrap 95% interval (resampling questions, the seed fixed and
reported) and the exact McNemar test on the discordant pass / non-pass pairs; and one reading:
"B is better", "B is worse", or "not distinguishable from noise on this corpus" when the interval
contains 0.

Exit codes: 0 compared; 2 could not compare (a report that does not read, another corpus digest
without ``--common-only``, nothing in common).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core import figures as fig
from eval.core import markdown as md
from eval.core.errors import HarnessError, UsageError
from eval.core.html import render
from eval.core.output import confine, resolve_input, write_text
from eval.core.stats import BOOTSTRAP_ITERATIONS, BOOTSTRAP_SEED, mcnemar_exact, paired_bootstrap, wilson

EXIT_OK, EXIT_CANNOT_JUDGE = 0, 2
PASS, UNMEASURED = "pass", "unmeasured"
DECLINED = ("refused",)


class CompareError(HarnessError):
    """Two reports that cannot be compared; the message says which file and why."""


@dataclass(frozen=True)
class Side:
    label: str
    path: str
    report: dict[str, Any]
    questions: dict[str, dict[str, Any]]


def load_report(path: Path, label: str) -> Side:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{path}: report not found; pass the JSON written by --json") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompareError(f"{path}: not a readable JSON report ({exc})") from None
    if not isinstance(data, dict) or data.get("suite") != "sql" or not isinstance(data.get("questions"), list):
        raise CompareError(f"{path}: not a SQL suite report (python -m eval.run --suite sql --json PATH writes one)")
    questions: dict[str, dict[str, Any]] = {}
    for q in data["questions"]:
        if not isinstance(q, dict) or not isinstance(q.get("id"), str) or not isinstance(q.get("verdict"), str):
            raise CompareError(f"{path}: a question without an id or a verdict: {str(q)[:80]}")
        questions[q["id"]] = q
    return Side(label, str(path), data, questions)


def _rate(side: Side, ids: list[str]) -> dict[str, Any]:
    answerable = [side.questions[i] for i in ids if side.questions[i].get("expect", "answer") == "answer"]
    measured = [q for q in answerable if q["verdict"] != UNMEASURED]
    passed = sum(q["verdict"] == PASS for q in measured)
    ci = wilson(passed, len(measured))
    return {
        "pass": passed,
        "measured": len(measured),
        "pass_rate": round(passed / len(measured), 4) if measured else None,
        "ci": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
    }


def compare(
    base: Side,
    new: Side,
    *,
    common_only: bool = False,
    seed: int = BOOTSTRAP_SEED,
    iterations: int = BOOTSTRAP_ITERATIONS,
) -> dict[str, Any]:
    """The comparison as the JSON it is written as."""
    digests = (base.report.get("corpus", {}).get("digest"), new.report.get("corpus", {}).get("digest"))
    notes = []
    if digests[0] != digests[1]:
        if not common_only:
            raise CompareError(
                f"{base.path} and {new.path} were measured on different corpora (digest "
                f"{str(digests[0])[:16]} vs {str(digests[1])[:16]}): their numbers are not comparable; "
                "pass --common-only to compare the questions they share"
            )
        notes.append("different corpus digests: compared on the questions both reports hold (--common-only)")
    ids = [i for i in base.questions if i in new.questions]
    if common_only:
        only = (len(base.questions) - len(ids), len(new.questions) - len(ids))
        if any(only):
            notes.append(f"{only[0]} question(s) only in A and {only[1]} only in B left out")
    elif len(ids) != len(base.questions) or len(ids) != len(new.questions):
        raise CompareError(f"{base.path} and {new.path} share the corpus digest but not the same question ids")
    if not ids:
        raise CompareError(f"{base.path} and {new.path} have no question in common")
    flips: list[dict[str, Any]] = []
    transitions: Counter[str] = Counter()
    per_stratum: dict[str, Counter[str]] = {}
    for i in ids:
        a, b = base.questions[i], new.questions[i]
        move = f"{a['verdict']}->{b['verdict']}"
        transitions[move] += 1
        per_stratum.setdefault(str(b.get("stratum", a.get("stratum", ""))), Counter())[move] += 1
        if a["verdict"] != b["verdict"]:
            flips.append(
                {
                    "id": i,
                    "stratum": b.get("stratum", a.get("stratum")),
                    "expect": b.get("expect", "answer"),
                    "old": a["verdict"],
                    "new": b["verdict"],
                    "reason": b.get("reason"),
                }
            )
    paired = [
        i
        for i in ids
        if base.questions[i].get("expect", "answer") == "answer"
        and UNMEASURED not in (base.questions[i]["verdict"], new.questions[i]["verdict"])
    ]
    before = [base.questions[i]["verdict"] == PASS for i in paired]
    after = [new.questions[i]["verdict"] == PASS for i in paired]
    lost, gained = sum(x and not y for x, y in zip(before, after)), sum(y and not x for x, y in zip(before, after))
    ci = paired_bootstrap(before, after, iterations=iterations, seed=seed)
    difference = None if not paired else round((sum(after) - sum(before)) / len(paired), 4)
    reading = (
        "nothing to compare: no answerable question measured on both sides"
        if ci is None
        else "B is better"
        if ci[0] > 0
        else "B is worse"
        if ci[1] < 0
        else "not distinguishable from noise on this corpus"
    )
    return {
        "a": {"report": base.path, "candidate": base.report.get("candidate"), **_rate(base, ids)},
        "b": {"report": new.path, "candidate": new.report.get("candidate"), **_rate(new, ids)},
        "corpus": {"digest_a": digests[0], "digest_b": digests[1], "compared": len(ids), "common_only": common_only},
        "notes": notes,
        "flips": flips,
        "transitions": dict(sorted(transitions.items())),
        "transitions_per_stratum": {k: dict(sorted(v.items())) for k, v in sorted(per_stratum.items())},
        "paired": {"questions": len(paired), "a_pass_b_not": lost, "b_pass_a_not": gained},
        "difference": {
            "value": difference,
            "ci": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
            "method": "paired bootstrap over questions, percentile 95% interval",
            "iterations": iterations,
            "seed": seed,
        },
        "mcnemar_p": round(mcnemar_exact(lost, gained), 6),
        "reading": reading,
    }


def to_markdown(result: dict[str, Any]) -> str:
    a, b, d = result["a"], result["b"], result["difference"]

    def who(side: dict[str, Any]) -> str:
        c = side.get("candidate") or {}
        return f"{md.escape(c.get('path'))} / {md.escape(c.get('model'))} (`{md.escape(side['report'])}`)"

    out = ["# Run-vs-run comparison", "", f"A: {who(a)}  ", f"B: {who(b)}", ""]
    out += [f"> {md.escape(n)}" for n in result["notes"]] + ([""] if result["notes"] else [])
    out += [
        f"**{md.escape(result['reading'])}**: difference in pass rate "
        f"{fig.points(d['value'])} (95% CI {fig.points_interval(d['ci'])}, "
        f"paired bootstrap over {result['paired']['questions']} questions, seed {d['seed']}); exact McNemar "
        f"p = {result['mcnemar_p']:.4g} ({result['paired']['a_pass_b_not']} passed only in A, "
        f"{result['paired']['b_pass_a_not']} only in B).",
        "",
    ]
    out += [
        md.table(
            ["", "pass rate", "95% CI", "pass / measured"],
            [
                [side, fig.pct(s["pass_rate"]), fig.interval(s["ci"]), fig.of(s["pass"], s["measured"])]
                for side, s in (("A", a), ("B", b))
            ],
        ),
        "",
    ]
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
    return "\n".join(out)


def to_html(result: dict[str, Any], scale: float = 200.0) -> str:
    """The comparison as one self-contained page (``eval.core.html``): each side's rate with its interval."""

    def bar(side: dict[str, Any]) -> dict[str, float | None]:
        ci = side.get("ci")
        return {
            "rate": round(scale * (side.get("pass_rate") or 0.0), 2),
            "low": None if not ci else round(scale * ci[0], 2),
            "high": None if not ci else round(scale * ci[1], 2),
        }

    sides = [("A", result["a"], bar(result["a"])), ("B", result["b"], bar(result["b"]))]
    return render("compare.html.j2", result=result, sides=sides, scale=scale)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m eval.compare",
        description=__doc__.splitlines()[0],
        epilog="Exit codes: 0 compared; 2 could not compare.",
    )
    p.add_argument("base", type=Path, help="A: the JSON report to compare against")
    p.add_argument("new", type=Path, help="B: the JSON report compared")
    p.add_argument("--json", metavar="PATH", help="also write the comparison as JSON")
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown")
    p.add_argument("--html", metavar="PATH", help="also write one self-contained HTML page")
    p.add_argument(
        "--common-only", action="store_true", help="compare reports of different corpora on the question ids they share"
    )
    p.add_argument("--seed", type=int, default=BOOTSTRAP_SEED, help=f"bootstrap seed (default {BOOTSTRAP_SEED})")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        for out in (args.json, args.markdown, args.html):
            if out:
                confine(out)
        result = compare(
            load_report(resolve_input(args.base), "A"),
            load_report(resolve_input(args.new), "B"),
            common_only=args.common_only,
            seed=args.seed,
        )
        text = to_markdown(result)
        print(text)
        if args.markdown:
            write_text(args.markdown, text + "\n")
        if args.json:
            write_text(args.json, json.dumps(result, indent=2) + "\n")
        if args.html:
            write_text(args.html, to_html(result))
        return EXIT_OK
    except (HarnessError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CANNOT_JUDGE


if __name__ == "__main__":
    sys.exit(main())
