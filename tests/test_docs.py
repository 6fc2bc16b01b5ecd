"""README's quick start and CI stay in step: CI runs exactly the test command README gives."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"^## Quick start\s*$(.*?)(?=^## )", readme, flags=re.M | re.S)
    assert match, "README.md needs a '## Quick start' section followed by another '## ' section"
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", match.group(1), flags=re.M | re.S)
    return [
        line.strip()
        for block in blocks
        for line in block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def test_quick_start_has_exactly_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2, commands
    run, test = commands
    assert run == "bash scripts/run.sh"
    assert test == "bash scripts/test.sh"


def test_ci_runs_the_readme_test_command() -> None:
    test_command = quick_start_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text()
    ci_lines = [line for line in ci.splitlines() if not line.lstrip().startswith("#")]
    runs = [line for line in ci_lines if test_command in line]
    assert runs, f".ci/run does not call {test_command!r}"
    assert any("DATABASE_URL=postgres" in line for line in runs), "no PostgreSQL run in .ci/run"
    assert any("-u DATABASE_URL" in line for line in runs), "no SQLite run in .ci/run"


def test_scripts_the_readme_names_exist() -> None:
    for command in quick_start_commands():
        script = command.split()[1]
        assert (ROOT / script).is_file(), script
