"""Read-only SQL: the guard, the read-only executor and sessions, and the size limits."""
