"""Evaluation, not the product's writes: the LoCoMo harness (`manage.py locomo_eval`) and the
labelled event-precision set (`manage.py event_precision`). They drive the product through its
services like any client and are never imported by it (tests/architecture)."""
