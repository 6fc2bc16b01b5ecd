"""The numbers behind the settings page's preview (SPEC §4.6–4.7, §13.6): where the current λ and
block size come from, the level schedule now vs. with the proposed values, the context tokens a
chosen session would cost under both λ, and the λ that keeps the per-turn decay when the block
size changes. Reads only: previewing never writes."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.conf import settings

from memory.engine.decay import (
    LAMBDA_WARNING_ABOVE,
    level_schedule,
    suggest_lambda,
    validate_block_turns,
    validate_lambda,
)
from memory.engine.history_mode import HISTORY_LAYERED, validate_history_mode
from memory.engine.redact import redact, redact_actor
from memory.engine.tools_mode import validate_tools_mode
from memory.models import MemorySettings, Namespace, Session
from memory.selectors.blocks import layered_history
from memory.selectors.health import ProcessingOut
from memory.selectors.namespaces import namespace_id_of
from memory.selectors.out import Out
from memory.selectors.processing_model import processing_model
from memory.selectors.proxy_history import proxied_tokens, session_raw_tokens
from memory.selectors.settings import EffectiveSettings, memory_settings_get

SCHEDULE_AGES = 12  # the preview shows ages 0…12 (blocks sealed after a block)
SESSION_CHOICES = 50  # the most recently active sessions offered in the picker
INPUT_CHARS = 40  # longer form input is not a number anyone meant to type
SESSION_LABEL_CHARS = 80


class SettingsSource(Out):
    """Where the values in force come from."""

    block_lambda: float
    block_turns: int
    proxy_history: str  # layered | native
    proxy_tools: str  # off | memory
    saved: bool  # False: never saved, the environment default applies
    updated_by: str
    updated_at: datetime | None
    env_block_lambda: float
    env_block_turns: int


class FieldError(Out):
    # invalid_block_lambda | invalid_block_turns | invalid_proxy_history | invalid_proxy_tools
    code: str
    message: str


class ScheduleRow(Out):
    """One age of the level schedule: blocks sealed after a block → the level it shows."""

    age: int
    turns_later: int | None  # age × proposed block size (None while the size is invalid)
    current: int
    proposed: int | None  # None while the proposed λ is invalid
    change: int  # proposed − current (0 when unchanged or unknown)

    @property
    def steps(self) -> int:
        return abs(self.change)


class SessionChoice(Out):
    session_id: str
    label: str
    turns: int
    last_activity_at: datetime | None


class TokenEstimate(Out):
    """Context tokens of a session's layered history (SPEC §4.8) under both λ."""

    namespace: str
    session_id: str
    session_label: str  # whitespace-collapsed, cut, redacted
    current: int
    proposed: int | None
    difference: int | None
    # A proxied request sending the whole session back: its history as the agent sends it,
    # and as the proxy sends it with today's settings and with the proposed ones.
    proxy_native: int
    proxy_sent: int
    proxy_sent_proposed: int | None


class Suggestion(Out):
    """SPEC §4.7: λ_new = λ_old × new_size / old_size, rounded to 0.05 within 0…1."""

    block_lambda: float
    old_block_lambda: float
    old_block_turns: int
    new_block_turns: int
    capped: bool  # the exact value fell outside 0…1
    applied: bool  # the proposed λ already equals it


class SettingsPreview(Out):
    current: SettingsSource
    # What the person typed, kept as text so a form re-renders it unchanged.
    input_block_lambda: str
    input_block_turns: str
    input_proxy_history: str
    input_proxy_tools: str
    block_lambda: float | None  # validated proposal (None when invalid)
    block_turns: int | None
    proxy_history: str | None
    proxy_tools: str | None
    errors: dict[str, FieldError]
    warning: bool  # proposed λ above 0.40: forgets fast (advice, saving stays allowed)
    schedule: list[ScheduleRow]
    suggestion: Suggestion | None
    namespaces: list[str]
    namespace: str | None
    sessions: list[SessionChoice]
    session_id: str | None
    tokens: TokenEstimate | None

    @property
    def valid(self) -> bool:
        return not self.errors


def settings_source() -> SettingsSource:
    current = memory_settings_get()
    row = (
        MemorySettings.objects.filter(pk=MemorySettings.SINGLETON_ID)
        .only("updated_by", "updated_at")
        .first()
    )
    return SettingsSource(
        block_lambda=current.block_lambda,
        block_turns=current.block_turns,
        proxy_history=current.proxy_history,
        proxy_tools=current.proxy_tools,
        saved=current.saved,
        updated_by=redact_actor(row.updated_by) if row else "",
        updated_at=row.updated_at if row else None,
        env_block_lambda=round(float(settings.STRATAGATE_BLOCK_LAMBDA), 2),
        env_block_turns=int(settings.STRATAGATE_BLOCK_TURNS),
    )


def exact_number(text: str) -> Decimal | str:
    """Form text as an exact Decimal ("0.35" stays 0.35, no binary float on the way), or the
    text itself when it is not a finite number, so the engine's validator reports it as given."""
    cleaned = text.strip()
    if len(cleaned) > INPUT_CHARS:
        return cleaned[:INPUT_CHARS] + "…"
    try:
        number = Decimal(cleaned)
    except InvalidOperation:
        return cleaned
    return number if number.is_finite() else cleaned


def lambda_parse(text: str) -> float:
    """Form text → a valid λ, or ValueError with the engine's message (what a save would say)."""
    return validate_lambda(exact_number(text))


def block_turns_parse(text: str) -> int:
    return validate_block_turns(exact_number(text))


def proxy_history_parse(text: str) -> str:
    """Form text → `layered` or `native`, or ValueError (what a save would say)."""
    return validate_history_mode(text[:INPUT_CHARS])


def proxy_tools_parse(text: str) -> str:
    """Form text → `off` or `memory`, or ValueError (what a save would say)."""
    return validate_tools_mode(text[:INPUT_CHARS])


def settings_input_errors(
    block_lambda: str, block_turns: str
) -> tuple[float | None, int | None, dict[str, FieldError]]:
    """Validate λ and block size at once (a form shows every problem, not just the first)."""
    errors: dict[str, FieldError] = {}
    lam: float | None = None
    turns: int | None = None
    try:
        lam = lambda_parse(block_lambda)
    except ValueError as exc:
        errors["block_lambda"] = FieldError(code="invalid_block_lambda", message=str(exc))
    try:
        turns = block_turns_parse(block_turns)
    except ValueError as exc:
        errors["block_turns"] = FieldError(code="invalid_block_turns", message=str(exc))
    return lam, turns, errors


def _schedule(current: float, proposed: float | None, turns: int | None) -> list[ScheduleRow]:
    now = level_schedule(current, SCHEDULE_AGES)
    then = level_schedule(proposed, SCHEDULE_AGES) if proposed is not None else None
    return [
        ScheduleRow(
            age=age,
            turns_later=age * turns if turns is not None else None,
            current=now[age],
            proposed=then[age] if then is not None else None,
            change=(then[age] - now[age]) if then is not None else 0,
        )
        for age in range(SCHEDULE_AGES + 1)
    ]


def _suggestion(
    current: EffectiveSettings, lam: float | None, turns: int | None
) -> Suggestion | None:
    if turns is None or turns == current.block_turns:
        return None
    suggested = suggest_lambda(current.block_lambda, current.block_turns, turns)
    exact = current.block_lambda * turns / current.block_turns
    return Suggestion(
        block_lambda=suggested,
        old_block_lambda=current.block_lambda,
        old_block_turns=current.block_turns,
        new_block_turns=turns,
        capped=exact > 1.0 + 1e-9,
        applied=lam is not None and abs(lam - suggested) < 1e-9,
    )


def _session_choice(row: Session) -> SessionChoice:
    return SessionChoice(
        session_id=row.external_id,  # the exact id: it is the picker's value
        label=redact(" ".join(row.external_id.split())[:SESSION_LABEL_CHARS]),
        turns=row.turn_count,
        last_activity_at=row.last_activity_at,
    )


def _recent_sessions(namespace: Namespace) -> list[Session]:
    return list(
        Session.objects.filter(namespace=namespace).order_by("-last_activity_at", "-pk")[
            :SESSION_CHOICES
        ]
    )


def _pick_session(namespace: Namespace | None, wanted: str) -> tuple[list[Session], Session | None]:
    """The picker's sessions and the chosen one: `wanted` if it exists (even when older than
    the picker's window), else the most recently active session."""
    if namespace is None:
        return [], None
    rows = _recent_sessions(namespace)
    chosen = next((row for row in rows if row.external_id == wanted), None)
    if chosen is None and wanted:
        chosen = Session.objects.filter(namespace=namespace, external_id=wanted).first()
        if chosen is not None:
            rows.append(chosen)
    if chosen is None and rows:
        chosen = rows[0]
    return rows, chosen


def _pick_namespace(names: list[str], wanted: str) -> Namespace | None:
    name = wanted if wanted in names else (names[0] if names else "")
    return Namespace.objects.filter(name=name).first() if name else None


def _proxy_history_input(text: str) -> tuple[str | None, FieldError | None]:
    try:
        return proxy_history_parse(text), None
    except ValueError as exc:
        return None, FieldError(code="invalid_proxy_history", message=str(exc))


def _proxy_tools_input(text: str) -> tuple[str | None, FieldError | None]:
    try:
        return proxy_tools_parse(text), None
    except ValueError as exc:
        return None, FieldError(code="invalid_proxy_tools", message=str(exc))


def settings_preview_numbers(
    *,
    block_lambda: str | None,
    block_turns: str | None,
    proxy_history: str | None = None,
    proxy_tools: str | None = None,
    ns: str = "",
    session: str = "",
    namespaces: list[str] | None = None,
) -> SettingsPreview:
    """The preview for proposed values given as form text (None = keep the current value).
    An unknown namespace or session falls back to the default choice rather than failing: the
    picker is a convenience, and a stale link should still show a useful preview. The picker
    offers `namespaces` (the ones the person may see; every one when None)."""
    source = settings_source()
    current = EffectiveSettings(source.block_lambda, source.block_turns, source.saved)
    lam_text = f"{current.block_lambda:.2f}" if block_lambda is None else block_lambda
    turns_text = str(current.block_turns) if block_turns is None else block_turns
    lam, turns, errors = settings_input_errors(lam_text, turns_text)
    history_text = source.proxy_history if proxy_history is None else proxy_history
    history, history_error = _proxy_history_input(history_text)
    if history_error is not None:
        errors["proxy_history"] = history_error
    tools_text = source.proxy_tools if proxy_tools is None else proxy_tools
    tools, tools_error = _proxy_tools_input(tools_text)
    if tools_error is not None:
        errors["proxy_tools"] = tools_error

    names = (
        sorted(namespaces)
        if namespaces is not None
        else list(Namespace.objects.order_by("name").values_list("name", flat=True))
    )
    namespace = _pick_namespace(names, ns)
    rows, chosen = _pick_session(namespace, session)
    sessions = [_session_choice(row) for row in rows]

    tokens = None
    if namespace is not None and chosen is not None:
        shown_now = layered_history(session=chosen, lam=current.block_lambda)
        shown_then = layered_history(session=chosen, lam=lam) if lam is not None else None
        now = shown_now.tokens
        then = shown_then.tokens if shown_then is not None else None
        proxy_native, per_block = session_raw_tokens(chosen)
        proxy_sent = proxied_tokens(
            shown_now.blocks,
            proxy_native,
            per_block,
            layered=source.proxy_history == HISTORY_LAYERED,
        )
        proxy_proposed = (
            proxied_tokens(
                shown_then.blocks, proxy_native, per_block, layered=history == HISTORY_LAYERED
            )
            if shown_then is not None and history is not None
            else None
        )
        tokens = TokenEstimate(
            namespace=namespace.name,
            session_id=chosen.external_id,
            session_label=_session_choice(chosen).label,
            current=now,
            proposed=then,
            difference=(then - now) if then is not None else None,
            proxy_native=proxy_native,
            proxy_sent=proxy_sent,
            proxy_sent_proposed=proxy_proposed,
        )

    return SettingsPreview(
        current=source,
        input_block_lambda=lam_text.strip()[:INPUT_CHARS],
        input_block_turns=turns_text.strip()[:INPUT_CHARS],
        input_proxy_history=history_text.strip()[:INPUT_CHARS],
        input_proxy_tools=tools_text.strip()[:INPUT_CHARS],
        block_lambda=lam,
        block_turns=turns,
        proxy_history=history,
        proxy_tools=tools,
        errors=errors,
        warning=lam is not None and lam > LAMBDA_WARNING_ABOVE,
        schedule=_schedule(current.block_lambda, lam, turns),
        suggestion=_suggestion(current, lam, turns),
        namespaces=names,
        namespace=namespace.name if namespace else None,
        sessions=sessions,
        session_id=chosen.external_id if chosen else None,
        tokens=tokens,
    )


class ProcessingBrief(Out):
    """Which model processes memory, as the settings page explains it. With
    STRATAGATE_LLM_FROM_PROXY (and no STRATAGATE_LLM_* model) the answer is per namespace:
    `namespace` names the one the page is looking at, and `processing` is that namespace's."""

    from_proxy: bool  # STRATAGATE_LLM_FROM_PROXY is on (a STRATAGATE_LLM_* model still wins)
    namespace: str | None
    processing: ProcessingOut | None  # for `namespace`; None without one


def settings_processing(namespace: str | None) -> ProcessingBrief:
    namespace_id = namespace_id_of(namespace) if namespace else None
    chosen = processing_model(namespace_id) if namespace_id is not None else None
    return ProcessingBrief.model_construct(
        from_proxy=bool(settings.STRATAGATE_LLM_FROM_PROXY),
        namespace=namespace if namespace_id is not None else None,
        processing=(
            ProcessingOut.model_construct(
                mode=chosen.mode, why=chosen.why, protocol=chosen.protocol, model=chosen.model
            )
            if chosen is not None
            else None
        ),
    )
