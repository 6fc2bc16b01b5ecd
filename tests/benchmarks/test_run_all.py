"""benchmarks/run_all.py: the table runs one subprocess per benchmark, keeps going past a failure,
merges summary.json, regenerates the README table, and understands every script's result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import run_all

ROOT = Path(__file__).resolve().parents[2]


def _script(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(
        "import json, os, pathlib, sys\n"
        "out = pathlib.Path(os.environ['BENCH_RESULTS_DIR'])\n"
        "out.mkdir(parents=True, exist_ok=True)\n" + body
    )


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[run_all.Benchmark]:
    """Four tiny scripts in a folder standing in for benchmarks/: one succeeds, one fails, one
    exits 0 without a result, one does not exist."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    _script(
        scripts,
        "good",
        "print('data dir', os.environ['STRATAGATE_DATA_DIR'])\n"
        "(out / 'good.json').write_text(json.dumps("
        "{'benchmark': 'good', 'rate': 12.5, 'quick': '--small' in sys.argv, 'note': 'x'}))\n",
    )
    _script(scripts, "bad", "sys.exit(3)\n")
    _script(scripts, "silent", "pass\n")
    _script(scripts, "blocked", "sys.exit(9)\n")
    _script(scripts, "unlisted", "sys.exit(8)\n")
    (scripts / "_helper.py").write_text("")
    monkeypatch.setattr(run_all, "BENCH", scripts)
    return [
        run_all.Benchmark("good", quick=("--small",)),
        run_all.Benchmark("bad"),
        run_all.Benchmark("silent"),
        run_all.Benchmark("absent"),
        run_all.Benchmark("blocked", missing=lambda: "needs a thing"),
    ]


def test_a_failure_does_not_stop_the_rest_and_fails_the_run(
    fakes: list[run_all.Benchmark], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    code = run_all.main(["--quick", "--results-dir", str(results)], table=fakes)
    assert code == 1
    # A script nobody added to the table is named, not run, and not silently forgotten.
    assert "not in its table, so not run: unlisted.py\n" in capsys.readouterr().out
    summary = json.loads((results / "summary.json").read_text())
    entries = summary["benchmarks"]
    assert {n: e["status"] for n, e in entries.items()} == {
        "good": "ok",
        "bad": "failed",
        "silent": "failed",
        "absent": "skipped",
        "blocked": "skipped",
    }
    # Headline figures of a script run_all knows nothing about: its top-level numbers.
    assert entries["good"]["figures"] == {"rate": 12.5, "quick": True}
    assert entries["good"]["argv"] == ["benchmarks/good.py", "--small"]
    assert (entries["bad"]["returncode"], entries["bad"]["note"]) == (3, "exited with 3")
    assert entries["silent"]["note"] == "wrote no silent.json"
    assert entries["absent"]["note"] == "absent.py does not exist yet"
    assert entries["blocked"]["note"] == "needs a thing"
    assert summary["last_run"]["failed"] == ["bad", "silent"]
    assert summary["last_run"]["skipped"] == ["absent", "blocked"]
    assert summary["last_run"]["mode"] == "quick"


def test_only_runs_the_named_ones_and_keeps_the_others_entries(
    fakes: list[run_all.Benchmark], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    assert run_all.main(["--results-dir", str(results)], table=fakes) == 1
    first = json.loads((results / "summary.json").read_text())["benchmarks"]
    assert run_all.main(["--only", "good", "--results-dir", str(results)], table=fakes) == 0
    summary = json.loads((results / "summary.json").read_text())
    assert summary["last_run"]["benchmarks"] == ["good"]
    assert summary["benchmarks"]["bad"] == first["bad"]
    assert summary["benchmarks"]["good"]["figures"] == {"rate": 12.5, "quick": False}
    with pytest.raises(SystemExit, match="unknown benchmark nope; known: absent, bad"):
        run_all.main(["--only", "good,nope", "--results-dir", str(results)], table=fakes)


def test_readme_table_is_regenerated_between_its_markers(tmp_path: Path) -> None:
    summary = {
        "benchmarks": {
            "good": {
                "status": "ok",
                "line": "12.5 turns/s | fast",
                "date": "2026-12-01T10:00:00+00:00",
                "mode": "full",
                "load_average_before": [1.25, 1.0, 1.0],
            },
            "bad": {
                "status": "failed",
                "returncode": 3,
                "date": "2026-12-01T10:05:00+00:00",
                "mode": "full",
            },
        }
    }
    readme = tmp_path / "README.md"
    readme.write_text(f"# B\n\nintro\n{run_all.BEGIN}\nold table\n{run_all.END}\n\nafter\n")
    assert run_all.readme_update(readme, summary)
    assert readme.read_text() == (
        f"# B\n\nintro\n{run_all.BEGIN}\n"
        "| benchmark | last figures | run |\n|---|---|---|\n"
        "| `good` | 12.5 turns/s / fast | 2026-12-01, full, load 1.25 |\n"
        "| `bad` | **failed**: exit 3 | 2026-12-01, full, load ? |\n"
        f"{run_all.END}\n\nafter\n"
    )
    plain = tmp_path / "PLAIN.md"
    plain.write_text("no markers\n")
    assert not run_all.readme_update(plain, summary)
    assert plain.read_text() == "no markers\n"


def test_postgres_search_uses_a_throwaway_database_beside_database_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser_args = run_all.argparse.Namespace(postgres=False, pg_url=None)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert run_all.pg_url_from(parser_args) is None
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
    assert run_all.pg_url_from(parser_args) == "postgres://postgres@127.0.0.1:5432/sg_bench"
    bench = next(b for b in run_all.BENCHMARKS if b.name == "search_latency")
    options = run_all.Options(quick=True, pg_url="postgres://h/sg_bench")
    assert bench.argv(options)[-4:] == ["--database", "both", "--pg-url", "postgres://h/sg_bench"]
    assert bench.argv(run_all.Options(quick=True, pg_url=None))[-2:] == ["--database", "sqlite"]
    ingest = next(b for b in run_all.BENCHMARKS if b.name == "ingest_rate")
    assert ingest.argv(options)[-4:] == ["--database", "both", "--pg-url", "postgres://h/sg_bench"]


def test_ingest_headline_carries_the_postgres_run() -> None:
    from _headlines import ingest_headline, ingest_line

    def run(rate: float, p95: float, errors: int, namespaces: int) -> dict[str, object]:
        latency = {"p50": p95 / 2, "p95": p95, "p99": p95 * 1.5, "max": p95 * 2}
        return {
            "turns_per_second": rate,
            "latency_ms": latency,
            "errors": errors,
            "namespaces": namespaces,
        }

    sqlite, postgres = run(190.5, 32.0, 0, 1), run(151.0, 42.1, 2, 4)
    result = {"turns": 2000, "clients": 4, "database": "sqlite (WAL)", **sqlite}
    alone = ingest_headline(result)
    assert "postgres_turns_per_second" not in alone
    assert ingest_line(alone).endswith("p99 48.0 ms; 0 errors")
    both = ingest_headline({**result, "runs": {"sqlite": sqlite, "postgres": postgres}})
    assert both["postgres_turns_per_second"] == 151.0 and both["errors"] == 2
    assert ingest_line(both).endswith(
        "p99 48.0 ms; PostgreSQL, 4 namespaces: 151.0 turns/s, p95 42.1 ms; 2 errors"
    )


def test_every_committed_result_is_understood_by_its_headline() -> None:
    """A script whose result JSON changed shape must change run_all too (else it would report
    'result not understood' only on the next full run)."""
    checked = []
    for bench in run_all.BENCHMARKS:
        # An opt-in variant run (search_latency_1m.json) has its benchmark's shape.
        for path in run_all.DEFAULT_RESULTS.glob(f"{bench.name}*.json"):
            if path.stem != bench.name and not path.stem.startswith(f"{bench.name}_"):
                continue
            figures = bench.headline(json.loads(path.read_text()))
            assert figures and bench.line(figures), path.name
            checked.append(path.stem)
    tracked = subprocess.run(
        ["git", "ls-files", "benchmarks/results"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert {Path(p).stem for p in tracked.split()} - {"summary"} <= set(checked)


def test_run_all_quick_model_calls_end_to_end(tmp_path: Path) -> None:
    """The real table and script, one cheap benchmark, into a results dir of its own."""
    committed = run_all.DEFAULT_RESULTS / "model_calls.json"
    before = committed.stat().st_mtime_ns if committed.exists() else None
    results = tmp_path / "results"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run_all.py"),
            "--quick",
            "--only",
            "model_calls",
            "--results-dir",
            str(results),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    entry = json.loads((results / "summary.json").read_text())["benchmarks"]["model_calls"]
    assert entry["status"] == "ok"
    figures = entry["figures"]
    assert (figures["turns"], figures["block_turns"], figures["failed_jobs"]) == (12, 6, 0)
    # Two blocks: at least their two block calls, each block's event extracted from the reply.
    assert figures["http_requests"] >= 2 and figures["events"] == 2
    assert figures["requests_per_turn"] == round(figures["http_requests"] / 12, 4)
    assert "model_calls: ok" in done.stdout
    after = committed.stat().st_mtime_ns if committed.exists() else None
    assert after == before  # a quick run never replaces the last full figures


@pytest.mark.parametrize("bench", run_all.BENCHMARKS, ids=lambda b: b.name)
def test_every_benchmark_prints_its_help(bench: run_all.Benchmark) -> None:
    """`--help` is how people find a script's options (a bare % in a help text broke it)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{bench.name}.py"), "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
