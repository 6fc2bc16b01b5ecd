"""The LoCoMo harness (`manage.py locomo_eval`) on the development split, from a clean install.

    .venv/bin/python benchmarks/locomo_dev.py [--path ../shared/data/locomo/locomo_dev.json]
                                              [--conversations conv-26,conv-30]

Creates a fresh SQLite data dir (offline processor: DATABASE_URL, REDIS_URL and STRATAGATE_*
are ignored), runs `manage.py migrate`, then `manage.py locomo_eval PATH --no-details
--json-out <tmp>` (SPEC §16; docs/EVALUATION.md explains the protocol), prints its table and
keeps the report without per-question rows as benchmarks/results/locomo_dev.json (git-ignored,
like every locomo*.json: the figures are the docs' business, the data's licence is
non-commercial).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import ROOT, clean_env, machine, write_result

# --- this benchmark ---

DEFAULT_PATH = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
MANAGE = [sys.executable, str(ROOT / "manage.py")]
GOALS = {"overall R@10": 0.75, "multi-hop R@10": 0.50, "overall budget@2000": 0.85}


def goals(report: dict[str, Any]) -> dict[str, bool]:
    """The issue's quality goals, judged on the recommended path."""
    figures = {
        "overall R@10": report["overall"].get("R@10"),
        "multi-hop R@10": report["by_category"].get("1", {}).get("R@10"),
        "overall budget@2000": report["overall"].get("budget@2000"),
    }
    return {k: v is not None and v >= GOALS[k] for k, v in figures.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH, help="a LoCoMo JSON file")
    parser.add_argument("--conversations", default="", help="sample ids, comma-separated")
    args = parser.parse_args()
    if not args.path.exists():
        print(f"no LoCoMo file at {args.path}", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(prefix="stratagate-bench-") as tmp:
        env = clean_env(Path(tmp))
        subprocess.run([*MANAGE, "migrate", "--verbosity", "0"], cwd=ROOT, env=env, check=True)
        out = Path(tmp) / "locomo.json"
        command = [*MANAGE, "locomo_eval", str(args.path), "--no-details", "--json-out", str(out)]
        if args.conversations:
            command += ["--conversations", args.conversations]
        done = subprocess.run(command, cwd=ROOT, env=env)
        if done.returncode != 0:
            print(f"locomo_eval exited with {done.returncode}", file=sys.stderr)
            return done.returncode
        report = json.loads(out.read_text(encoding="utf-8"))

    met = goals(report)
    print(
        "goals: "
        + ", ".join(f"{k} ≥ {GOALS[k]} {'met' if v else 'MISSED'}" for k, v in met.items())
    )
    result = {"benchmark": "locomo_dev", **report, "goals": GOALS, "goals_met": met}
    write_result("locomo_dev", {**result, "machine": machine()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
