"""What ``make bench ARGS=counterexamples`` prints as the search's floor (issue 36 point 6). Nothing is timed."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.bench_counterexamples import floor_line, measure_floor


def test_the_floor_is_the_run_plus_its_judging_statements_over_every_core():
    line = floor_line(off_s=2.0, statements_s=4.0, neighbours=2524, statements=5540, cores=2)
    # (2.0 + 4.0 / 2) / 2.0 = 2.00x: at the line, still within reach
    assert line == (
        "floor: judging 2,524 neighbours (a counterexample's shrinking included) ran 5,540 statements through the "
        "read-only executor, 4.00 s in one process; over 2 cores at least 2.00 s added to 2.00 s, 2.00x; 2x is "
        "within reach"
    )


def test_a_floor_above_the_target_says_it_is_unreachable():
    line = floor_line(off_s=2.0, statements_s=4.4, neighbours=10, statements=20, cores=2)
    assert line.endswith("at least 2.20 s added to 2.00 s, 2.10x; 2x is unreachable at this budget")


def test_the_floor_child_counts_every_neighbour_the_search_judged(tmp_path: Path):
    report = tmp_path / "run.json"
    floor = measure_floor(tmp_path, ["--counterexamples", "1", "--json", str(report)])  # as the bench runs it
    searched = [q["search"] for q in json.loads(report.read_text())["questions"] if q.get("search")]
    assert searched, "the run searched no pass"
    tried = sum(s["tried"] for s in searched)
    if any(s.get("refuted") for s in searched):  # shrinking a counterexample judges more neighbours
        assert floor["neighbours"] > tried
    else:
        assert floor["neighbours"] == tried
    # every judged neighbour ran at least the reference there, each statement taking some time
    assert floor["statements"] >= floor["neighbours"] > 0
    assert floor["seconds"] > 0
