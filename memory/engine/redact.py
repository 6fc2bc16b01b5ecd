"""Redaction applied on every way out (API, UI, exports, diagnostics) and to the search index's
text, never in storage (§15.3)."""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Callable
from functools import lru_cache, partial

MARK = "[REDACTED]"

# Every pattern below is linear in the text: a pattern that can fail after scanning starts
# only where its run of characters starts (a look-behind, not `\b`, which also holds after
# each `-` or `.` inside a run), or scans a bounded span. A pattern that started anywhere in
# a run and scanned it to its end took 466 s on a 100 kB run of `a-a-a-…` (2026-12-05).
_RUN = r"(?<![A-Za-z0-9_\-])"  # the start of a run of token characters

# PEM private keys: the whole block; a block cut short (a truncated paste, a model's answer cut
# at its token limit) up to where its base64 lines end. The scan for the END line stops at the
# next BEGIN or END line, so a block never reaches into the next one.
_PEM = re.compile(
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----"
    r"(?:(?:(?!-----(?:BEGIN|END) )[\s\S])*-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----"
    r"|(?:[A-Za-z0-9+/=\s]|[A-Za-z\-]{1,32}: [^\n]*)*)"
)

# Provider keys and tokens, by their documented prefixes; one alternation, one pass.
_TOKENS = re.compile(
    _RUN
    + r"(?:"
    + r"sk[-_][A-Za-z0-9_\-]{12,}"  # OpenAI sk-…/sk-proj-…, Anthropic sk-ant-…, Stripe sk_live_…
    + r"|rk_(?:live|test)_[A-Za-z0-9]{10,}"  # Stripe restricted keys
    + r"|whsec_[A-Za-z0-9]{20,}"  # Stripe webhook secrets
    + r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    + r"|glpat-[A-Za-z0-9_\-]{20,}"  # GitLab personal access tokens
    + r"|xox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack tokens
    + r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])"  # AWS access key ids (long-lived, session)
    + r"|AIza[0-9A-Za-z_\-]{35}"  # Google API keys
    + r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    + r"|npm_[A-Za-z0-9]{30,}"  # npm
    + r"|SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"  # SendGrid
    + r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"  # JSON web tokens
    + r")"
)
# StrataGate's own agent tokens, `sg_<public id>_<secret>` (memory.services.tokens): the public
# id stays, as the token list shows it, so a reader can tell which token it was.
_STRATAGATE_TOKEN = re.compile(_RUN + r"(sg_[0-9a-f]{8}_)[A-Za-z0-9_\-]{32,}")
# Incoming webhooks are credentials in their path; the host stays.
_WEBHOOK = re.compile(
    r"(https?://(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|(?:discord|discordapp)\.com/api/webhooks/))[A-Za-z0-9/_\-]+"
)
# Bearer tokens; a value of letters alone is a word ("Bearer authentication is required")
# unless it is long, and a dot only counts inside the value, not as the sentence's end.
_BEARER = re.compile(
    r"(\bBearer\s+)(?=[A-Za-z0-9._~+/\-]{8})"
    r"(?:[A-Za-z]{20,}|[A-Za-z]*(?:[0-9_~+/\-]|\.(?=[A-Za-z0-9]))[A-Za-z0-9._~+/\-]*)=*",
    re.IGNORECASE,
)
_AUTHORIZATION = re.compile(
    r"(\b(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:basic|token)[ \t]+)"
    r"[A-Za-z0-9._~+/\-]{6,}=*",
    re.IGNORECASE,
)
# A URL's password: the scheme, user and host stay (`postgres://app:[REDACTED]@db/x`,
# `redis://:[REDACTED]@cache`). The password runs to the authority's last `@`.
_URL_PASSWORD = re.compile(
    r"((?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s/:@?#\"'<>]{0,128}:)"
    r"[^\s/?#\"'<>]{1,256}(?=@[^\s/?#@\"'<>]{0,253}(?:[\s/?#\"'<>]|$))",
)
# `curl -u user:password`, `--user user:password`: the user stays.
_CURL_USER = re.compile(r"((?:^|\s)(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']{1,128}:)[^\s\"']+")
# A .netrc line: `machine host login bob password hunter2`.
_NETRC = re.compile(r"(\blogin[ \t]+\S{1,128}[ \t]+password[ \t]+)\S+", re.IGNORECASE)

# Keys whose value is a secret. Long words count inside a longer name (PGPASSWORD,
# db_password, accessTokenSecret); the name must not go on with more letters of the same word
# ("secretary", "tokenizer", max_tokens), except at a camelCase step (passwordHash).
# `pass`/`pwd` are words of their own (pass the salt, bypass): they count only as a whole name
# or a name's last part (SMTP_PASS, db-pwd), and a bare `pass:` followed by an unquoted word
# stays prose (boarding pass: gate 12).
_LONG_KEYS = (
    r"pass(?:word|wd|phrase)|secret(?:[_\- ]?key)?|token|client[_\-]?secret"
    r"|(?:api|access)[_\- ]?key|(?:account|private|auth|signing|encryption)[_\-]?key"
)
_END = r"(?:(?![A-Za-z])|(?-i:(?<=[a-z])(?=[A-Z])))"
_KEY = (
    r"(?P<key>(?:"
    + _LONG_KEYS
    + r"|(?<![A-Za-z0-9])(?:pass|pwd))"
    + _END
    + r"[A-Za-z0-9_\-]{0,64})"
)
_SEPARATOR = r"[\"'`]?(?:\*\*|__)?[ \t]*(?P<sep>:=|=>|==|[:=])(?:\*\*|__)?[ \t]*"
_KEY_VALUE = re.compile(
    _KEY
    + _SEPARATOR
    + r"(?:(?P<quote>[\"'`])(?P<quoted>(?:\\.|(?!(?P=quote))[^\\\n]){1,512})(?P=quote)"
    + r"|(?P<plain>(?![\s\"'`\[])[^\s,;&\"'`]+))",
    re.IGNORECASE,
)
# The same inside a JSON string that holds JSON (a tool call's arguments as text, an imported
# document, a model's answer): `{\"token\": \"…\"}`, quotes escaped once or more. The value
# ends at the next backslash or quote.
_ESCAPED_JSON = re.compile(
    _KEY + r"\\{1,16}\"[ \t]*:[ \t]*(?P<open>\\{1,16}\")[^\"\\]*",
    re.IGNORECASE,
)
# A flag and its value: `--password hunter2`, `--api-key "…"`, `--smtp-pass x` (not --bypass).
_FLAG = re.compile(
    r"((?<![A-Za-z0-9_\-])--(?:[A-Za-z0-9\-]{0,32}(?:" + _LONG_KEYS + r")"
    r"|(?:[A-Za-z0-9\-]{0,32}-)?(?:pass|pwd))"
    + _END
    + r"[A-Za-z0-9\-]{0,32}[ \t]+)(?:\"[^\"\n]{1,512}\"|'[^'\n]{1,512}'|(?!-)[^\s\"']+)",
    re.IGNORECASE,
)


def _key_value(match: re.Match[str]) -> str:
    if match["plain"] is not None:
        if MARK in match["plain"]:
            return match[0]  # what an earlier rule left visible (sg_<id>_, a URL's user)
        start = match.start()
        bare = start == 0 or match.string[start - 1] not in "_-.\"'`"
        if bare and match["key"].lower() == "pass" and match["sep"] == ":":
            return match[0]  # "Boarding pass: gate 12"
        return match[0][: match.start("plain") - start] + MARK
    return match[0][: match.start("quoted") - match.start()] + MARK + match["quote"]


def _keep_first(match: re.Match[str]) -> str:
    return match.group(1) + MARK


def _escaped_json(match: re.Match[str]) -> str:
    return match[0][: match.end("open") - match.start()] + MARK


# Each rule with a gate: a cheap test on the folded text (lower-cased, see `_fold`) that holds
# whenever the rule could match. Gates test only literals, and case-sensitive patterns on the
# folded text, which scan several times faster than the rules' case-insensitive ones: a 2 kB
# message with no credential is answered by the gates alone. Replacing a match with MARK never
# creates a literal a later gate looks for, so gates are computed once, before any rule runs.
_KEY_WORDS = ("pass", "pwd", "secret", "token", "key")  # every key in _KEY contains one
_KEY_GATE = re.compile(
    r"(?:pass|pwd|secret|token|key)[a-z0-9_\-]{0,80}[\"'`]?(?:\*\*|__)?[ \t]*[:=]"
)
_ESCAPED_GATE = re.compile(r"(?:pass|pwd|secret|token|key)[a-z0-9_\-]{0,80}\\")
_FLAG_GATE = re.compile(r"--[a-z0-9_\- ]{0,48}(?:pass|pwd|secret|token|key)")
_TOKEN_PREFIXES = (
    "sk-", "sk_", "rk_", "whsec_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    "glpat-", "xox", "akia", "asia", "aiza", "hf_", "npm_", "sg.", "eyj",
)  # fmt: skip


def _has(*words: str) -> Callable[[str], bool]:
    return lambda folded: any(word in folded for word in words)


def _has_key(folded: str) -> bool:
    return any(word in folded for word in _KEY_WORDS)


_RULES: tuple[tuple[Callable[[str], bool], Callable[[str], str]], ...] = (
    (_has("-----begin"), partial(_PEM.sub, MARK)),
    (_has("sg_"), partial(_STRATAGATE_TOKEN.sub, _keep_first)),
    (_has(*_TOKEN_PREFIXES), partial(_TOKENS.sub, MARK)),
    (_has("hooks.slack.com/", "/api/webhooks/"), partial(_WEBHOOK.sub, _keep_first)),
    (_has("bearer"), partial(_BEARER.sub, _keep_first)),
    (_has("authorization"), partial(_AUTHORIZATION.sub, _keep_first)),
    (_has("://"), partial(_URL_PASSWORD.sub, _keep_first)),
    (_has("-u"), partial(_CURL_USER.sub, _keep_first)),  # -u and --user
    (_has("login"), partial(_NETRC.sub, _keep_first)),
    (
        lambda f: "\\" in f and _has_key(f) and bool(_ESCAPED_GATE.search(f)),
        partial(_ESCAPED_JSON.sub, _escaped_json),
    ),
    (lambda f: "--" in f and bool(_FLAG_GATE.search(f)), partial(_FLAG.sub, _keep_first)),
    (lambda f: _has_key(f) and bool(_KEY_GATE.search(f)), partial(_KEY_VALUE.sub, _key_value)),
)

# Case-insensitive matching also pairs these with ASCII letters; str.lower() does not.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _fold(text: str) -> str:
    return text.lower() if text.isascii() else text.translate(_FOLD).lower()


# Short texts (names, titles, fact values) are redacted again on every read that shows them:
# `redact` is pure, so the result for each of the last CACHED_TEXTS short texts is kept.
CACHED_CHARS = 512
CACHED_TEXTS = 8192


def redact(text: str) -> str:
    """Replace credentials in `text` with [REDACTED]; everything else is left byte-for-byte."""
    if not text:
        return text
    if len(text) <= CACHED_CHARS:
        return _redact_short(text)
    return _redact(text)


@lru_cache(maxsize=CACHED_TEXTS)
def _redact_short(text: str) -> str:
    return _redact(text)


def _redact(text: str) -> str:
    folded = _fold(text)
    for gate, apply in _RULES:
        if gate(folded):
            text = apply(text)
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
