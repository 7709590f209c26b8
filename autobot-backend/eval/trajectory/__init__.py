"""The agent-trajectory suite: goldens, candidates, evaluators and its report."""
