"""Template helpers for the word lists of graphui.vocabulary: job kinds and states, the gate's
verdicts, rejections and notes, and engine numbers. Templates use these instead of listing the
words themselves."""

from __future__ import annotations

from typing import Protocol

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from graphui import vocabulary
from graphui.vocabulary import Word

register = template.Library()


def _symbol_and_label(word: Word) -> SafeString:
    if not word.symbol:
        return format_html("{}", word.label)
    return format_html('<span aria-hidden="true">{}</span> {}', word.symbol, word.label)


def _badge(word: Word, extra: str = "") -> SafeString:
    css = " ".join(c for c in ("badge", word.tone, extra) if c)
    return format_html('<span class="{}">{}</span>', css, _symbol_and_label(word))


@register.simple_tag
def job_kind(kind: str, describe: bool = False) -> SafeString:
    """A job or model-call kind in words; `describe` adds what the kind does."""
    word = vocabulary.MODEL_CALL_KINDS.get(kind)
    if word is None:
        return format_html("<code>{}</code>", kind)
    if describe and word.note:
        return format_html('{}<span class="kind-note">{}</span>', word.label, word.note)
    return format_html("{}", word.label)


@register.simple_tag
def job_status_badge(status: str) -> SafeString:
    """A job state as a badge: a symbol and a word, never colour alone."""
    return _badge(vocabulary.JOB_STATUSES.get(status) or vocabulary.Word(status))


@register.filter
def job_status_label(status: str) -> str:
    return vocabulary.job_status_label(status)


@register.simple_tag
def verdict_word(verdict: str | None) -> SafeString:
    """A verdict's symbol and word ("no assessment" for none), for labels that are not badges."""
    return _symbol_and_label(vocabulary.verdict_word(verdict))


@register.simple_tag
def verdict_badge(verdict: str | None) -> SafeString:
    return _badge(vocabulary.verdict_word(verdict), "verdict")


@register.filter
def strategy_label(strategy: str | None) -> str:
    """A next strategy or a batch's tool in words; "—" for none."""
    return vocabulary.label(vocabulary.STRATEGIES, strategy) if strategy else "—"


@register.filter
def ref_kind_label(kind: str | None) -> str:
    return vocabulary.label(vocabulary.REF_KINDS, kind) if kind else "?"


@register.filter
def ref_rejection(reason: str) -> str:
    """Why the gate did not count a cited ref, in words."""
    return vocabulary.label(vocabulary.REF_REJECTIONS, reason)


class _Note(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...


@register.filter
def gate_note(note: _Note) -> str:
    """What the gate changed in an assessment, in words (its own message for a new code)."""
    word = vocabulary.GATE_NOTES.get(note.code)
    return str(word.label) if word else note.message


@register.simple_tag
def superseded_cap() -> str:
    """`{% superseded_cap as cap %}`: the weight a superseded event is capped at."""
    return vocabulary.superseded_cap()


@register.simple_tag
def memory_rounds_limit() -> str:
    """`{% memory_rounds_limit %}`: how many memory rounds the proxy runs for an answer at most."""
    return vocabulary.memory_rounds_limit()
