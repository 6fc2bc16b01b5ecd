"""Fixtures of the stress variants: processes started as fresh interpreters."""

from tests.reliability.procs import exec_processes  # noqa: F401  (fixture)
