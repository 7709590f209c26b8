"""Shared infrastructure of every suite: errors, paths and output, readers, statistics, escaping, pages, progress."""
