"""The engines a run grades on: SQLite, DuckDB, PostgreSQL (a throwaway server), and their dialects."""
