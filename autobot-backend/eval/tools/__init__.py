"""Tools over finished runs: run against run (compare_runs) and the dated record over time (trend)."""
