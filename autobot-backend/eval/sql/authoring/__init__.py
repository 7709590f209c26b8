"""Writing a corpus of one's own: a starter corpus from a database, and the check before any run."""
