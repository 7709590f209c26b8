"""The SQL suite's run model: verdicts, outcomes and the run as every output reads it."""
