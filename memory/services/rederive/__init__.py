"""Re-derivation of a namespace's events with the current extraction rules (issue 29):
`namespace_rederive` (run.py), what it may not remove (keep.py), how fresh events continue old
rows (reconcile.py)."""

from memory.services.rederive.run import RederiveReport, namespace_rederive

__all__ = ["RederiveReport", "namespace_rederive"]
