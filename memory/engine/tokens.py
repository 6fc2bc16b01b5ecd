"""Cheap, deterministic token estimate used by the length guard and every token budget (SPEC §3).

It is deliberately not a real tokenizer: it must give the same number on every machine, with no
model files, and it must never under-count CJK text by much. ASCII runs are cheap (about four
characters per token), every other code point costs one token.
"""

from __future__ import annotations

import re

# Maximal runs of code points <= 0x7F. A regex keeps this linear and fast on the 1 MiB turns that
# ingestion allows; a per-character Python loop was several times slower.
_ASCII_RUN = re.compile(r"[\x00-\x7f]+")
_ASCII_CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimate tokens: each maximal ASCII run costs ceil(len/4), each non-ASCII code point 1."""
    ascii_chars = 0
    tokens = 0
    for match in _ASCII_RUN.finditer(text):
        run = match.end() - match.start()
        ascii_chars += run
        # Charged per run, not per character, so "ab你好cd" costs 1 + 2 + 1.
        tokens += -(-run // _ASCII_CHARS_PER_TOKEN)
    return tokens + (len(text) - ascii_chars)
