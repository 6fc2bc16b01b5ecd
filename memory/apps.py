"""App config for the memory engine; registers system checks."""

from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "StrataGate memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from memory import checks  # noqa: F401  (registers the checks)
        from memory.services import graph, imports, processing  # noqa: F401  (job handlers)
