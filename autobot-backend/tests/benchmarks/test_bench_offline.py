"""What ``make bench ARGS=offline`` prints as the least an offline run pays (issue 27 point 4). Nothing is timed."""

from __future__ import annotations

from benchmarks.bench_offline import Bare, least_line


def test_the_least_a_run_pays_is_its_imports_and_its_sql_generator_and_guard_over_every_core():
    line = least_line(Bare(sql=0.8, generator=0.3, guard=0.1), imports_s=0.4, cores=2)
    # 0.4 + (0.8 + 0.3 + 0.1) / 2 = 1.0 s, under the 1.2 s that 1.5x of the SQL allows
    assert line == (
        "the least a run pays: its libraries imported (0.40 s past start-up), then over 2 cores its SQL (0.80 s), "
        "the built-in generator's answers (0.30 s) and the guard's reading of every statement (0.10 s): "
        "0.40 + 0.60 = 1.00 s; 1.5x allows 1.20 s: the target is within reach"
    )


def test_a_target_under_the_least_is_unreachable():
    assert least_line(Bare(sql=0.2), imports_s=0.4, cores=2).endswith("1.5x allows 0.30 s: the target is unreachable")
    # The generator and the guard alone can put it out of reach: 0.4 + (0.8 + 0.7 + 0.3) / 2 = 1.3 s > 1.2 s,
    # where the SQL alone (0.4 + 0.4 = 0.8 s) would be within it.
    assert least_line(Bare(sql=0.8), imports_s=0.4, cores=2).endswith("the target is within reach")
    beyond = least_line(Bare(sql=0.8, generator=0.7, guard=0.3), imports_s=0.4, cores=2)
    assert beyond.endswith("0.40 + 0.90 = 1.30 s; 1.5x allows 1.20 s: the target is unreachable")
