"""The Memory UI app."""

from django.apps import AppConfig


class GraphuiConfig(AppConfig):
    name = "graphui"
    verbose_name = "StrataGate Memory UI"
