"""Change the installation-wide λ, block size and the proxy's history and tools modes (read them
with `selectors.settings`)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from django.db import transaction

from memory.engine.decay import validate_block_turns, validate_lambda
from memory.engine.history_mode import validate_history_mode
from memory.engine.tools_mode import validate_tools_mode
from memory.errors import Invalid
from memory.models import MemorySettings
from memory.selectors.settings import EffectiveSettings, memory_settings_get
from memory.services.audit import admin_action


def _checked[T](value: object, current: T, validate: Callable[[object], T], code: str) -> T:
    """`value` validated (None keeps `current`); an invalid one is `Invalid` with `code`."""
    if value is None:
        return current
    try:
        return validate(value)
    except ValueError as exc:
        raise Invalid(str(exc), code=code) from exc


def memory_settings_update(
    *,
    block_lambda: object = None,
    block_turns: object = None,
    proxy_history: object = None,
    proxy_tools: object = None,
    updated_by: str = "",
) -> EffectiveSettings:
    """Validate and persist. λ applies at once everywhere: levels are derived, never stored.
    The raw write: people and agents change settings through `settings_update`, which is
    audited; test fixtures and the demo set-up call this one."""
    current = memory_settings_get()
    lam = _checked(block_lambda, current.block_lambda, validate_lambda, "invalid_block_lambda")
    turns = _checked(block_turns, current.block_turns, validate_block_turns, "invalid_block_turns")
    history = _checked(
        proxy_history, current.proxy_history, validate_history_mode, "invalid_proxy_history"
    )
    tools = _checked(proxy_tools, current.proxy_tools, validate_tools_mode, "invalid_proxy_tools")
    with transaction.atomic():
        MemorySettings.objects.update_or_create(
            pk=MemorySettings.SINGLETON_ID,
            defaults={
                "block_lambda": Decimal(f"{lam:.2f}"),
                "block_turns": turns,
                "proxy_history": history,
                "proxy_tools": tools,
                "updated_by": updated_by[:200],
            },
        )
    return memory_settings_get()


def _settings_state(current: EffectiveSettings) -> dict[str, object]:
    return {
        "block_lambda": current.block_lambda,
        "block_turns": current.block_turns,
        "proxy_history": current.proxy_history,
        "proxy_tools": current.proxy_tools,
        "source": "database" if current.saved else "environment",
    }


def settings_update(
    *,
    block_lambda: object = None,
    block_turns: object = None,
    proxy_history: object = None,
    proxy_tools: object = None,
    actor: str,
) -> EffectiveSettings:
    """Save λ, block size and the proxy's history and tools modes (None keeps a value) and log
    who did it (`user:<name>` from the Memory UI, `token:<prefix>` from the API), in one
    transaction: an invalid value raises `Invalid` (codes `invalid_block_lambda` /
    `invalid_block_turns` / `invalid_proxy_history` / `invalid_proxy_tools`) and leaves neither
    the settings row nor an AdminAction row behind."""
    with transaction.atomic():
        before = memory_settings_get()
        after = memory_settings_update(
            block_lambda=block_lambda,
            block_turns=block_turns,
            proxy_history=proxy_history,
            proxy_tools=proxy_tools,
            updated_by=actor,
        )
        admin_action(
            "settings",
            namespace_id=None,  # installation-wide: applies to every namespace at once
            actor=actor,
            target="settings",
            details={"before": _settings_state(before), "after": _settings_state(after)},
        )
    return after
