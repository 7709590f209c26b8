"""What a run's numbers decide: the baseline, the gate's checks, re-recording and the exit code."""
