"""Redaction applied on every way out (API, UI, exports, diagnostics), never in storage (§15.3)."""

from __future__ import annotations

import copy
import logging
import re

MARK = "[REDACTED]"

_PATTERNS: tuple[re.Pattern[str], ...] = (
    # PEM private keys, whole block.
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.DOTALL),
    # Provider keys and tokens.
    re.compile(r"\bsk[-_][A-Za-z0-9_\-]{12,}"),
    re.compile(r"\bghp_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    # JSON web tokens.
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
)
_BEARER = re.compile(r"(\bBearer\s+)[A-Za-z0-9._~+/\-]{8,}=*", re.IGNORECASE)
_URL_CREDENTIALS = re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^\s/:@]+:[^\s/@]+@", re.IGNORECASE)
_SECRET_KEYS = r"(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)"
_QUOTED_JSON = re.compile(
    r'("[A-Za-z0-9_\-]*' + _SECRET_KEYS + r'[A-Za-z0-9_\-]*"\s*:\s*")(?:[^"\\]|\\.)*(")',
    re.IGNORECASE,
)
# The same inside a JSON string that holds JSON (a tool call's arguments as text, an imported
# document, a model's answer): `{\"token\": \"…\"}`, quotes escaped once or more. The value
# ends at the next backslash or quote.
_ESCAPED_JSON = re.compile(
    r'(\\+"[A-Za-z0-9_\-]*' + _SECRET_KEYS + r'[A-Za-z0-9_\-]*\\+"\s*:\s*\\+")[^"\\]*',
    re.IGNORECASE,
)
_KEY_VALUE = re.compile(
    r"(\b[A-Za-z0-9_\-]*" + _SECRET_KEYS + r"[A-Za-z0-9_\-]*\s*[:=]\s*)(?![\s\"'\[]|\[REDACTED\])"
    r"[^\s,;&\"']+",
    re.IGNORECASE,
)


# Something every pattern above needs (a superset, case-insensitive): text without any of these
# holds no credential, and one search instead of thirteen substitutions is most of redaction's
# cost on the pages and contexts that redact thousands of short strings.
_TRIGGER = re.compile(
    r"-----BEGIN|sk[-_]|ghp_|github_pat_|xox[abposr]-|AKIA|eyJ|bearer|://"
    r"|password|passwd|secret|token|api[_-]?key|access[_-]?key",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """Replace credentials in `text` with [REDACTED]; everything else is left byte-for-byte."""
    if not text or not _TRIGGER.search(text):
        return text
    return _redact_all(text)


def _redact_all(text: str) -> str:
    for pattern in _PATTERNS:
        text = pattern.sub(MARK, text)
    text = _BEARER.sub(lambda m: m.group(1) + MARK, text)
    text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + MARK + "@", text)
    text = _QUOTED_JSON.sub(lambda m: m.group(1) + MARK + m.group(2), text)
    text = _ESCAPED_JSON.sub(lambda m: m.group(1) + MARK, text)
    text = _KEY_VALUE.sub(lambda m: m.group(1) + MARK, text)
    return text


def redact_actor(actor: str) -> str:
    """`token:9c72f1f0` / `user:alice`: the kind stays, only the name is searched for secrets
    (`token:` would otherwise read as a key-value pair and hide a token's public prefix)."""
    kind, sep, name = actor.partition(":")
    return f"{kind}{sep}{redact(name)}" if sep and kind in ("token", "user") else redact(actor)


_TRACEBACKS = logging.Formatter()


class RedactingFilter(logging.Filter):
    """A log handler's filter (settings.LOGGING): the line the handler writes has credentials
    redacted in its message, its arguments, its traceback and its stack. StrataGate's own log
    calls redact what they quote; this also covers what they cannot: an exception's text in a
    traceback (a 500's, logged by django.request) and other libraries' messages.

    Returns a redacted copy (Python 3.12 filters may), so other handlers, pytest's caplog
    among them, still get the record as it was logged."""

    def filter(self, record: logging.LogRecord) -> logging.LogRecord:
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit the message: show neither whole
            message = f"{record.msg} [its arguments did not fit; left out]"
        clean = copy.copy(record)
        clean.msg, clean.args = redact(str(message)), None
        exc_text = record.exc_text
        if record.exc_info and not exc_text:
            exc_text = _TRACEBACKS.formatException(record.exc_info)
        # A formatter writes exc_text when it is set; without exc_info none can format the
        # exception itself again.
        clean.exc_text = redact(exc_text) if exc_text else exc_text
        clean.exc_info = None
        if record.stack_info:
            clean.stack_info = redact(record.stack_info)
        return clean
