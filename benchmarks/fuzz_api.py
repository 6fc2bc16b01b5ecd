"""API fuzzing, stress variant: `tests/security/test_fuzz.py` with many more generated requests.

    .venv/bin/python benchmarks/fuzz_api.py [--examples 25] [--seed N] [--database sqlite|postgres]
        [--pg-url postgres://postgres@127.0.0.1:5432/sg_fuzz] [--lenient]

The suite's bounded run sends 4 examples per operation and generation mode (valid and invalid
input) with a fixed seed; this runs the same two tests (a token bound to the namespace: no 5xx,
answers conform to the OpenAPI schema, and here also invalid input refused with a 4xx unless
`--lenient`; a foreign token: only 404) with `--examples` per operation and mode and a random
seed (printed, so a failure can be replayed with `--seed`). Default sizes send ~2,800
requests. Needs the dev extra (schemathesis).

Prints the requests sent and the statuses answered per test, the operations that never answered
2xx, and every failure; writes benchmarks/results/fuzz_api.json; exits non-zero when a test
failed or fewer than `--min-requests` (2,000) requests were sent.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, clean_env, machine, write_result

TEST = "tests/security/test_fuzz.py"


def run_tests(args: argparse.Namespace, seed: int, report: Path, data_dir: Path) -> int:
    env = clean_env(data_dir)
    env.update(
        STRATAGATE_FUZZ_EXAMPLES=str(args.examples),
        STRATAGATE_FUZZ_SEED=str(seed),
        STRATAGATE_FUZZ_REPORT=str(report),
        STRATAGATE_FUZZ_STRICT="0" if args.lenient else "1",
    )
    if args.database == "postgres":
        # pytest-django creates (and drops) `test_<name>` on that server.
        env["DATABASE_URL"] = args.pg_url
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    return subprocess.run([*command, TEST], cwd=ROOT, env=env, check=False).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=25, help="per operation and mode")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (random)")
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432/sg_fuzz")
    parser.add_argument("--min-requests", type=int, default=2000)
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="do not require every invalid request to be refused (as the suite's bounded run)",
    )
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"fuzzing with {args.examples} examples per operation and mode, seed {seed}", flush=True)

    with tempfile.TemporaryDirectory(prefix="stratagate-fuzz-") as tmp:
        report = Path(tmp) / "report.jsonl"
        started = time.perf_counter()
        exit_code = run_tests(args, seed, report, Path(tmp))
        seconds = time.perf_counter() - started
        lines = (
            [json.loads(line) for line in report.read_text().splitlines()]
            if report.exists()
            else []
        )

    tests: dict[str, Any] = {}
    for line in lines:
        no_success = sorted(
            label
            for label, counts in line["by_operation"].items()
            if not any(str(code).startswith("2") for code in counts)
        )
        tests[line["test"]] = {
            "requests": line["requests"],
            "statuses": dict(sorted(line["statuses"].items())),
            "failures": line["failures"],
            "operations": len(line["by_operation"]),
            "operations_without_2xx": no_success,
        }
        statuses = tests[line["test"]]["statuses"]
        print(f"\n{line['test']}: {line['requests']} requests, statuses {statuses}")
        if line["test"] == "bound" and no_success:
            print(f"  operations that never answered 2xx: {', '.join(no_success)}")
        for label, text in line["failures"].items():
            print(f"  FAILED {label}\n    " + text.replace("\n", "\n    "))
    requests = sum(test["requests"] for test in tests.values())
    failures = sum(len(test["failures"]) for test in tests.values())
    print(f"\n{requests} requests in {seconds:.0f} s; {failures} failing operation(s)")
    print(f"pytest exit code {exit_code}")

    write_result(
        "fuzz_api",
        {
            "benchmark": "fuzz_api",
            "machine": machine(),
            "database": args.database,
            "examples": args.examples,
            "strict": not args.lenient,
            "seed": seed,
            "requests": requests,
            "failures": failures,
            "seconds": round(seconds, 1),
            "pytest_exit_code": exit_code,
            "tests": tests,
        },
    )
    if exit_code != 0 or len(tests) < 2:
        return 1
    if requests < args.min_requests:
        print(f"fewer than {args.min_requests} requests were sent", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
