"""What ``make bench ARGS=offline`` prints as the least an offline run pays (issue 27 point 4). Nothing is timed."""

from __future__ import annotations

from benchmarks.bench_offline import least_line


def test_the_least_a_run_pays_is_its_imports_and_its_sql_over_every_core():
    line = least_line(bare_s=0.8, imports_s=0.4, cores=2)
    # 0.4 + 0.8 / 2 = 0.8 s, under the 1.2 s that 1.5x allows
    assert line == (
        "the least a run pays: its libraries imported (0.40 s past start-up) and its SQL spread over 2 cores "
        "(0.40 s) = 0.80 s; 1.5x allows 1.20 s: the target is within reach"
    )


def test_a_target_under_the_least_is_unreachable():
    assert least_line(bare_s=0.2, imports_s=0.4, cores=2).endswith("1.5x allows 0.30 s: the target is unreachable")
