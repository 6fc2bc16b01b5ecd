"""Run every benchmark, one subprocess each, and write one JSON summary.

    .venv/bin/python benchmarks/run_all.py [--only a,b] [--quick] [--postgres] [--pg-url URL]
                                           [--results-dir DIR] [--no-readme]

The list is `BENCHMARKS` below: each entry names a script in benchmarks/ with its arguments for
a full run and for `--quick` (smaller corpora, for a smoke test of a whole install). A script
that is not there (one being written) or whose requirements are missing (Chromium, the dev
extra, the LoCoMo data) is skipped with a note. Each runs with its own throwaway data dir (the
scripts make their own too; `STRATAGATE_DATA_DIR` points at a fresh one anyway, so `var/` is
never touched), its output streamed, and its headline figures printed when it ends; a failing
one does not stop the others, but the exit status is 1 if any failed.

Results: each script's JSON and `summary.json` go to benchmarks/results/ for a full run, and to
a fresh temp dir for `--quick` (so trial figures never replace the last full ones) unless
`--results-dir` says where. `summary.json` keeps the entries of benchmarks not run this time, so
`--only` refreshes a part of it; a run into benchmarks/results/ also regenerates the "Last
figures" table of benchmarks/README.md from it (`--no-readme` leaves the README alone).

Search latency and ingest rate run on SQLite only unless `--postgres` is given or DATABASE_URL
names a PostgreSQL server; then they also run on a database created and dropped on that server
(`sg_bench`, or `--pg-url`; its name must contain "bench").
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _common import ROOT, clean_env, machine  # noqa: E402
from _headlines import (  # noqa: E402
    Figures,
    batch_headline,
    batch_line,
    calls_headline,
    calls_line,
    default_line,
    fuzz_headline,
    fuzz_line,
    graph_headline,
    graph_line,
    history_headline,
    history_line,
    ingest_headline,
    ingest_line,
    load_headline,
    load_line,
    locomo_headline,
    locomo_line,
    processing_headline,
    processing_line,
    proxy_headline,
    proxy_history_headline,
    proxy_history_line,
    proxy_line,
    scalars,
    search_headline,
    search_line,
)

DEFAULT_RESULTS = BENCH / "results"
README = BENCH / "README.md"
LOCOMO_DEV = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
CHROMIUM = Path("/usr/bin/chromium")  # graph_page.py drives Debian's Chromium at this path
BEGIN, END = "<!-- run_all: last figures -->", "<!-- /run_all -->"


@dataclass(frozen=True)
class Options:
    quick: bool
    pg_url: str | None  # None: SQLite only


@dataclass(frozen=True)
class Benchmark:
    """One row of the table: `name`.py in benchmarks/, writing results/`name`.json."""

    name: str
    full: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()
    # Arguments that depend on the run's options (the databases to measure).
    extra: Callable[[Options], list[str]] | None = None
    # Why it cannot run here (None: it can).
    missing: Callable[[], str | None] | None = None
    # Headline figures from its result JSON, and one line for people.
    headline: Callable[[dict[str, Any]], Figures] = scalars
    line: Callable[[Figures], str] = default_line
    timeout: float = 3600.0

    @property
    def script(self) -> Path:
        return BENCH / f"{self.name}.py"

    def argv(self, options: Options) -> list[str]:
        args = list(self.quick if options.quick else self.full)
        if self.extra is not None:
            args += self.extra(options)
        return [sys.executable, str(self.script), *args]


# --- requirements -------------------------------------------------------------------------------


def need_modules(*names: str) -> Callable[[], str | None]:
    def check() -> str | None:
        absent = [n for n in names if importlib.util.find_spec(n) is None]
        return f"needs the dev extra ({', '.join(absent)})" if absent else None

    return check


def need_load_servers() -> str | None:
    """load.py's PostgreSQL and Redis, on loopback as the script expects."""
    import socket

    for name, port in (("PostgreSQL", 5432), ("Redis", 6379)):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        except OSError:
            return f"no {name} on 127.0.0.1:{port}"
    return None


def need_chromium() -> str | None:
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM}"
    return need_modules("playwright")()


def need_locomo() -> str | None:
    return None if LOCOMO_DEV.exists() else f"no LoCoMo development split at {LOCOMO_DEV}"


def databases_arg(options: Options) -> list[str]:
    if options.pg_url is None:
        return ["--database", "sqlite"]
    return ["--database", "both", "--pg-url", options.pg_url]


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        "ingest_rate",
        quick=("--turns", "300"),
        extra=databases_arg,
        headline=ingest_headline,
        line=ingest_line,
    ),
    Benchmark(
        "processing_time",
        quick=("--turns", "60"),
        headline=processing_headline,
        line=processing_line,
    ),
    # Written alongside this file: skipped with a note while the script does not exist.
    Benchmark(
        "ingest_batch",
        quick=("--turns", "600", "--single", "150"),
        headline=batch_headline,
        line=batch_line,
    ),
    Benchmark(
        "search_latency",
        full=("--messages", "10000,100000"),  # the growth curve; the 100k run is the headline
        quick=("--messages", "5000", "--events", "1000", "--nodes", "300", "--queries", "40"),
        extra=databases_arg,
        missing=need_modules("rank_bm25"),
        headline=search_headline,
        line=search_line,
    ),
    Benchmark(
        "graph_page",
        quick=("--nodes", "300", "--runs", "2", "--limits", "150"),
        missing=need_chromium,
        headline=graph_headline,
        line=graph_line,
    ),
    Benchmark(
        "locomo_dev",
        quick=("--conversations", "conv-30"),
        missing=need_locomo,
        headline=locomo_headline,
        line=locomo_line,
    ),
    Benchmark(
        "history_tokens",
        quick=("--conversations", "conv-30"),
        missing=need_locomo,
        headline=history_headline,
        line=history_line,
    ),
    Benchmark(
        "proxy_history",
        quick=("--conversations", "conv-30", "--questions", "20"),
        missing=need_locomo,
        headline=proxy_history_headline,
        line=proxy_history_line,
    ),
    Benchmark("model_calls", quick=("--turns", "12"), headline=calls_headline, line=calls_line),
    Benchmark(
        "load",
        quick=("--seconds", "15", "--agents", "8"),
        missing=need_load_servers,
        headline=load_headline,
        line=load_line,
    ),
    Benchmark(
        "proxy_overhead",
        quick=("--messages", "5000", "--requests", "60"),
        headline=proxy_headline,
        line=proxy_line,
    ),
    Benchmark(
        "fuzz_api",
        quick=("--examples", "4", "--min-requests", "400"),
        missing=need_modules("schemathesis"),
        headline=fuzz_headline,
        line=fuzz_line,
    ),
)


# --- running ------------------------------------------------------------------------------------


def run_one(bench: Benchmark, options: Options, results_dir: Path) -> dict[str, Any]:
    """Run one benchmark as a subprocess; its summary entry (status ok / failed / skipped)."""
    entry: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "mode": "quick" if options.quick else "full",
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }
    if not bench.script.exists():
        return {**entry, "status": "skipped", "note": f"{bench.script.name} does not exist yet"}
    reason = bench.missing() if bench.missing is not None else None
    if reason is not None:
        return {**entry, "status": "skipped", "note": reason}

    argv = bench.argv(options)
    entry["argv"] = [f"benchmarks/{bench.script.name}", *argv[2:]]
    result_path = results_dir / f"{bench.name}.json"
    before = result_path.stat().st_mtime_ns if result_path.exists() else None
    data_dir = Path(tempfile.mkdtemp(prefix=f"stratagate-run-all-{bench.name}-"))
    env = clean_env(data_dir)
    env["BENCH_RESULTS_DIR"] = str(results_dir)
    started = time.perf_counter()
    # Its own process group, so a timeout stops the servers and browsers it started too.
    process = subprocess.Popen(argv, cwd=ROOT, env=env, start_new_session=True)
    try:
        returncode = process.wait(timeout=bench.timeout)
        note = ""
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        returncode, note = -1, f"stopped after {bench.timeout:.0f} s"
    except BaseException:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        raise
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    entry.update(seconds=round(time.perf_counter() - started, 1), returncode=returncode)

    written = result_path.exists() and result_path.stat().st_mtime_ns != before
    if written:
        shown = result_path.relative_to(ROOT) if result_path.is_relative_to(ROOT) else result_path
        entry["result_file"] = str(shown)
        try:
            entry["figures"] = bench.headline(json.loads(result_path.read_text()))
            entry["line"] = bench.line(entry["figures"])
        except (KeyError, TypeError, ValueError) as exc:  # a changed result format
            note = note or f"result not understood: {exc!r}"
            returncode = returncode or 1
    elif returncode == 0:
        note, returncode = f"wrote no {result_path.name}", 1
    entry["status"] = "ok" if returncode == 0 else "failed"
    note = note or (f"exited with {returncode}" if returncode else "")
    if note:
        entry["note"] = note
    return entry


def run_benchmarks(
    table: Sequence[Benchmark], options: Options, results_dir: Path
) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    for number, bench in enumerate(table, start=1):
        print(f"\n[{number}/{len(table)}] {bench.name}", flush=True)
        entry = run_one(bench, options, results_dir)
        entries[bench.name] = entry
        status = entry["status"]
        took = f" in {entry['seconds']} s" if "seconds" in entry else ""
        detail = entry.get("line") or entry.get("note") or ""
        print(f"[{number}/{len(table)}] {bench.name}: {status}{took}: {detail}", flush=True)
    return entries


def summary_write(path: Path, entries: dict[str, dict[str, Any]], options: Options) -> Path:
    """Merge this run's entries into `path` (entries of benchmarks not run stay as they were)."""
    previous: dict[str, Any] = {}
    if path.exists():
        try:
            previous = json.loads(path.read_text()).get("benchmarks", {})
        except (ValueError, AttributeError):
            previous = {}
    merged = {**previous, **entries}
    order = [b.name for b in BENCHMARKS]
    ranked = sorted(merged, key=lambda n: (order.index(n) if n in order else len(order), n))
    summary = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "last_run": {
            "mode": "quick" if options.quick else "full",
            "postgres": options.pg_url is not None,
            "benchmarks": list(entries),
            "failed": [n for n, e in entries.items() if e["status"] == "failed"],
            "skipped": [n for n, e in entries.items() if e["status"] == "skipped"],
        },
        "machine": machine(),
        "benchmarks": {name: merged[name] for name in ranked},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    return path


def figures_table(summary: dict[str, Any]) -> str:
    """The README's "Last figures" table, from summary.json."""
    rows = ["| benchmark | last figures | run |", "|---|---|---|"]
    for name, entry in summary["benchmarks"].items():
        if entry["status"] == "ok":
            text = entry.get("line", "")
        elif entry["status"] == "skipped":
            text = f"skipped: {entry.get('note', '')}"
        else:
            text = f"**failed**: {entry.get('note') or f'exit {entry.get("returncode")}'}"
        load = entry.get("load_average_before", ["?"])[0]
        when = f"{entry['date'][:10]}, {entry['mode']}, load {load}"
        rows.append(f"| `{name}` | {text.replace('|', '/')} | {when} |")
    return "\n".join(rows)


def readme_update(readme: Path, summary: dict[str, Any]) -> bool:
    """Replace the text between the markers; False (README untouched) when they are absent."""
    text = readme.read_text()
    if BEGIN not in text or END not in text:
        return False
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{figures_table(summary)}\n{END}{tail}")
    return True


def pg_url_from(args: argparse.Namespace) -> str | None:
    """The throwaway PostgreSQL database for search latency, or None for SQLite only."""
    if args.pg_url:
        return str(args.pg_url)
    url = os.environ.get("DATABASE_URL", "")
    if not (args.postgres or url.startswith(("postgres://", "postgresql://"))):
        return None
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgres://postgres@127.0.0.1:5432/sg_bench"
    parts = urllib.parse.urlsplit(url)
    # search_latency drops the database it is given: never the one DATABASE_URL names.
    return urllib.parse.urlunsplit(parts._replace(path="/sg_bench"))


def select(table: Sequence[Benchmark], only: str) -> list[Benchmark]:
    names = [n.strip() for n in only.split(",") if n.strip()]
    known = {b.name for b in table}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(
            f"run_all: unknown benchmark {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return [b for b in table if not names or b.name in names]


def not_in_table(table: Sequence[Benchmark]) -> list[str]:
    """Scripts in benchmarks/ that the table does not run (helpers start with `_`)."""
    listed = {b.script.name for b in table} | {Path(__file__).name}
    return sorted(
        p.name for p in BENCH.glob("*.py") if not p.name.startswith("_") and p.name not in listed
    )


def main(argv: Sequence[str] | None = None, table: Sequence[Benchmark] = BENCHMARKS) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated names (default: all)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes; a smoke test")
    parser.add_argument("--postgres", action="store_true", help="search latency on PostgreSQL too")
    parser.add_argument("--pg-url", help="throwaway database for it ('bench' in its name)")
    parser.add_argument("--results-dir", type=Path, help="default: benchmarks/results (full)")
    parser.add_argument("--no-readme", action="store_true", help="leave README.md as it is")
    args = parser.parse_args(argv)
    chosen = select(table, args.only)
    options = Options(quick=args.quick, pg_url=pg_url_from(args))
    if args.results_dir is not None:
        results_dir = args.results_dir.resolve()
    elif args.quick:
        results_dir = Path(tempfile.mkdtemp(prefix="stratagate-bench-quick-"))
    else:
        results_dir = DEFAULT_RESULTS
    mode = "quick" if args.quick else "full"
    dbs = "SQLite and PostgreSQL" if options.pg_url else "SQLite"
    print(f"run_all: {len(chosen)} benchmarks ({mode}, search on {dbs}) → {results_dir}")
    unlisted = not_in_table(table)
    if unlisted:
        print(f"run_all: not in its table, so not run: {', '.join(unlisted)}")

    started = time.perf_counter()
    entries = run_benchmarks(chosen, options, results_dir)
    path = summary_write(results_dir / "summary.json", entries, options)
    summary = json.loads(path.read_text())
    to_readme = results_dir == DEFAULT_RESULTS and not args.no_readme
    readme = to_readme and readme_update(README, summary)

    failed = summary["last_run"]["failed"]
    print(f"\nrun_all: {len(entries)} benchmarks in {time.perf_counter() - started:.0f} s")
    for name, entry in entries.items():
        detail = entry.get("line") or entry.get("note") or ""
        print(f"  {name:<16} {entry['status']:<8} {detail}")
    print(f"wrote {path}" + (f" and the figures table of {README.name}" if readme else ""))
    if failed:
        print(f"run_all: failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
