"""Keep the garbage collector's full collections off what a process loaded at start.

A full collection walks every object the collector tracks. In a web process that is mostly
Django, the site and their libraries, about 150,000 objects once started, and each full
collection paused all of the process's threads for 70–100 ms (measured with `gc.callbacks`
while `benchmarks/proxy_overhead.py` ran): whatever request was in flight took that much longer,
and in the worker a pause inside a write transaction keeps the database locked as long. Full
collections come back as a long-running process allocates. What was loaded at start lives as
long as the process, so after one collection it is moved to the permanent generation
(`gc.freeze`), and later full collections walk only what came after: under 6 ms in the same run.
Frozen objects are still freed when their last reference goes; only a reference cycle among
them would stay, as the modules and classes that make most of them stay anyway.
"""

from __future__ import annotations

import gc


def freeze_loaded() -> int:
    """Collect once, then move every object tracked so far out of the collector's reach.
    Returns how many objects were frozen. Called at a process's entry point only, once the site
    is imported (`stratagate_site.web.main`, the db_worker command run from the command line):
    frozen halfway through a process's life, objects that later become garbage in a reference
    cycle (a finished thread's database connection) would never be freed."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
