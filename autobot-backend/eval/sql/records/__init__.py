"""The dated accuracy record and the docs pages generated from runs."""
