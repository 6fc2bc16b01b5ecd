"""Namespace derivation for local clients: project (working directory), session, global."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from memory.agent_tools.namespaces import (
    NAME_RE,
    NamespaceModeError,
    derive_namespace,
    project_namespace,
)


def test_project_mode_gives_a_stable_valid_name_per_directory(tmp_path: Path) -> None:
    project = tmp_path / "My Project"
    project.mkdir()
    name = derive_namespace("project", cwd=project)
    assert re.fullmatch(r"proj-my-project-[0-9a-f]{12}", name)
    assert NAME_RE.match(name)
    assert derive_namespace("project", cwd=project) == name
    assert derive_namespace("project", cwd=str(project) + os.sep) == name


def test_project_mode_follows_symlinks_and_dot_segments(tmp_path: Path) -> None:
    project = tmp_path / "app"
    (project / "sub").mkdir(parents=True)
    link = tmp_path / "link-to-app"
    link.symlink_to(project)
    expected = project_namespace(project)
    assert project_namespace(link) == expected
    assert project_namespace(project / "sub" / "..") == expected


def test_different_directories_with_the_same_name_get_different_namespaces(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "a" / "app", tmp_path / "b" / "app"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    assert project_namespace(first) != project_namespace(second)
    assert project_namespace(first).startswith("proj-app-")


def test_case_is_folded_only_where_file_names_are_case_insensitive(tmp_path: Path) -> None:
    upper, lower = tmp_path / "Repo", tmp_path / "repo"
    for platform in ("darwin", "win32"):
        assert project_namespace(upper, platform=platform) == project_namespace(
            lower, platform=platform
        )
    assert project_namespace(upper, platform="linux") != project_namespace(lower, platform="linux")


def test_a_directory_without_a_usable_name_still_gets_a_namespace() -> None:
    assert re.fullmatch(r"proj-root-[0-9a-f]{12}", project_namespace("/"))
    assert re.fullmatch(r"proj-[0-9a-f]{12}", project_namespace("/tmp/日本語"))


def test_project_mode_defaults_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert derive_namespace("project") == project_namespace(tmp_path)


def test_session_mode_uses_the_session_id() -> None:
    assert derive_namespace("session", session_id="chat-42") == "chat-42"
    with pytest.raises(NamespaceModeError, match="needs a session id"):
        derive_namespace("session")
    with pytest.raises(NamespaceModeError, match="not a valid namespace name"):
        derive_namespace("session", session_id="chat 42/x")


def test_global_mode_shares_one_namespace(tmp_path: Path) -> None:
    assert derive_namespace("global", cwd=tmp_path, session_id="s") == "global"


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(NamespaceModeError, match="unknown namespace mode"):
        derive_namespace("per-user")
