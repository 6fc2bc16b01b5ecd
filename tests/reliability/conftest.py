"""Fixtures of the reliability tests: real processes against the test database."""

from tests.reliability.procs import exec_processes, processes  # noqa: F401  (fixtures)
