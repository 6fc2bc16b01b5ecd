"""Installation-wide memory settings (λ, block size, the proxy's history and tools modes); one
row, saved values win over env."""

from __future__ import annotations

from decimal import Decimal

from django.db import models


class MemorySettings(models.Model):
    SINGLETON_ID = 1

    block_lambda = models.DecimalField(max_digits=3, decimal_places=2, default=Decimal("0.30"))
    block_turns = models.IntegerField(default=6)
    # How the model proxy sends earlier turns: layered | native (memory.engine.history_mode).
    proxy_history = models.CharField(max_length=16, default="layered")
    # Whether the model proxy runs the memory tools itself: off | memory (memory.engine.tools_mode).
    proxy_tools = models.CharField(max_length=16, default="off")
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name_plural = "memory settings"

    def __str__(self) -> str:
        return f"λ={self.block_lambda}, block_turns={self.block_turns}"
