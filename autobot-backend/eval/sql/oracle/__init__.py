"""The oracle's own checks: the self-check, the cross-engine agreement and the reference lints."""
