"""The SQL answer-accuracy suite."""
