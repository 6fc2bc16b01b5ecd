"""What the model proxy (the `proxy` package) keeps besides the turns it captures: which sessions
came through it and how their conversations are recognised, each proxied request with the memory
injected into it, the agent's system prompts (once per session) and traffic counters."""

from __future__ import annotations

from django.db import models

from memory.models.conversation import Session, Turn
from memory.models.namespaces import Namespace
from memory.models.retrieval import Activation


class ProxyProtocol(models.TextChoices):
    OPENAI = "openai"
    ANTHROPIC = "anthropic"


class ProxySession(models.Model):
    """A session that came through the proxy. `digest` names the conversation as the session has
    stored it (a hash chain over its turns, starting from `base_digest`, the history the agent
    had already sent when the session began): a request whose earlier messages hash to it
    continues this session."""

    session = models.OneToOneField(Session, on_delete=models.CASCADE, related_name="proxy")
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    protocol = models.CharField(max_length=16, choices=ProxyProtocol.choices)
    # True when the agent named the session (X-StrataGate-Session), False when recognised.
    named = models.BooleanField(default=False)
    base_digest = models.CharField(max_length=64)
    digest = models.CharField(max_length=64)
    captured_turns = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    last_request_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["namespace", "digest"], name="proxy_session_digest")]

    def __str__(self) -> str:
        return f"proxy session {self.session_id}"


class ProxySystemPrompt(models.Model):
    """The agent's system prompt, once per session and version (never stored per turn)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="system_prompts")
    digest = models.CharField(max_length=64)
    text = models.TextField()
    first_turn = models.ForeignKey(
        Turn, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "digest"], name="system_prompt_unique")
        ]

    def __str__(self) -> str:
        return f"system prompt {self.pk} of session {self.session_id}"


class ExchangeState(models.TextChoices):
    OPEN = "open"  # forwarded, no answer yet
    TOOL_STEP = "tool_step"  # the model asked for tools: the turn goes on in a later request
    CAPTURED = "captured"  # the final answer arrived and the turn was stored
    DUPLICATE = "duplicate"  # the turn was already stored (a retry or a resent request)
    NOT_CAPTURED = "not_captured"  # capture off, or nothing to capture (no user message)
    UPSTREAM_ERROR = "upstream_error"  # the model answered with an error, relayed as it came
    INCOMPLETE = "incomplete"  # the stream was cut or the client went away: nothing stored
    CAPTURE_FAILED = "capture_failed"  # storing failed; the turn waits in the spool for a retry


class ProxyExchange(models.Model):
    """One proxied model request: the memory injected into it, what came back, and the turn it
    completed. Requests of one turn (a tool loop) share `earlier_digest` and `opener_digest`."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="exchanges"
    )
    protocol = models.CharField(max_length=16, choices=ProxyProtocol.choices)
    model = models.CharField(max_length=200, blank=True)
    stream = models.BooleanField(default=False)
    earlier_digest = models.CharField(max_length=64)
    opener_digest = models.CharField(max_length=64, blank=True)
    receipt_id = models.CharField(max_length=200, blank=True)
    state = models.CharField(
        max_length=16, choices=ExchangeState.choices, default=ExchangeState.OPEN
    )
    capture = models.BooleanField(default=True)
    # "" when memory worked; else why the request went on without it (X-StrataGate-Memory).
    degraded_reason = models.CharField(max_length=40, blank=True)
    injected_text = models.TextField(blank=True)
    injected_refs = models.JSONField(default=list, blank=True)
    injected_tokens = models.IntegerField(default=0)
    activation = models.ForeignKey(
        Activation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    upstream_status = models.IntegerField(null=True, blank=True)
    prompt_tokens = models.IntegerField(null=True, blank=True)
    completion_tokens = models.IntegerField(null=True, blank=True)
    turn = models.ForeignKey(
        Turn, null=True, blank=True, on_delete=models.SET_NULL, related_name="exchanges"
    )
    # A captured turn's place in the conversation: the digest after it (proxy.conversation.chain
    # of `earlier_digest` and the turn as the agent sends it back) and how many stored turns it
    # became (a long tool loop is stored in parts, `turn` the first). A later request whose
    # history links `earlier_digest` → `digest_after` holds this turn exactly as stored.
    digest_after = models.CharField(max_length=64, blank=True)
    turns_stored = models.SmallIntegerField(default=0)
    # What the model saw (docs/PROXY.md, "What the model saw"). The blocks sent in place of
    # earlier turns, one {"block_id", "level", "first_turn", "last_turn", "tokens"} each, and
    # the history's token estimate as sent and as the agent sent it (None: not layered).
    history_blocks = models.JSONField(default=list, blank=True)
    history_sent_tokens = models.PositiveIntegerField(null=True, blank=True)
    history_native_tokens = models.PositiveIntegerField(null=True, blank=True)
    # The memory rounds the proxy ran for this answer (proxy_tools = memory), in order: each
    # {"calls": [{"id", "name", "arguments", "status", "ok", "result"}], "prompt_tokens",
    # "completion_tokens"}, a call's "result" its tool's JSON result (a long one cut, with
    # "truncated": true). Never stored as conversation messages.
    memory_rounds = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["namespace", "earlier_digest", "opener_digest"], name="exchange_turn_key"
            ),
            models.Index(fields=["session", "id"], name="exchange_session"),
        ]

    def __str__(self) -> str:
        return f"proxy exchange {self.pk}"


class ProxyCounter(models.Model):
    """Traffic counters per namespace and day (requests, captures, injected tokens, degraded
    requests by reason, upstream errors by status): each web process adds what it counted."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    name = models.CharField(max_length=64)
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "day", "name"], name="proxy_counter_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name}={self.count}"
