"""The benchmark scripts are plain files in benchmarks/, not a package: put the folder on the
path so tests import them as their own `import _common` does."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
