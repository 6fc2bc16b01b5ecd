"""The read side's ranking: events, raw messages, graph nodes and the recall steps behind them.

Reads only, nothing recorded. Services call these and record what they showed as a retrieval
batch (`services.retrieval`); the Memory UI's search page and context building call them as they
are. Layer: `services` → `recall` → `selectors` → `search`, `models`, `engine`; nothing here
imports `services` (tests/architecture).
"""
