"""The Processing page tests' fixtures, defined with their helpers in support.py."""

from tests.graphui.processing.support import failed_job, member, model, proj, staff  # noqa: F401
