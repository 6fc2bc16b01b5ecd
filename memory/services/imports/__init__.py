"""Imports of other AIs' memories and exports of ours (SPEC §11), one module per concern:

- `parser` (v2/v1 rules), `formats` (ChatGPT, Claude, Mem0, detection), `dumpfile` (JSONL),
- `preview` (parse at once, decide per candidate in a durable job), `fingerprint`,
- `commit` (one transaction; synthetic `source` block; graph jobs via `graph_rollback`),
- `undo` (one transaction, exact), `restore` (JSONL into an empty namespace),
- `export` (v2) and `prompt` (the export prompt, English and Chinese).
"""

from memory.services.imports.commit import Choice, CommitResult, import_commit
from memory.services.imports.export import export_v2
from memory.services.imports.preview import import_create, import_preview_job
from memory.services.imports.prompt import import_prompt
from memory.services.imports.undo import UndoResult, import_undo

__all__ = [
    "Choice",
    "CommitResult",
    "UndoResult",
    "export_v2",
    "import_commit",
    "import_create",
    "import_preview_job",
    "import_prompt",
    "import_undo",
]
