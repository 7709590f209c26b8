"""The corpus: questions and their references, safe YAML, composition, snapshots, recorded answers."""
