"""Benchmarks (``make bench``): speed and memory figures, printed, never asserted by timed tests."""
