"""Event-type normalisation and the closed vocabularies (SPEC §5.1)."""

from __future__ import annotations

import pytest

from memory.engine.event_types import (
    BASES,
    CRITICALITIES,
    EVENT_TYPE_ALIASES,
    EVENT_TYPES,
    LIFECYCLE_STATUSES,
    PRECISIONS,
    RELATION_KINDS,
    SCOPES,
    TEMPORAL_STATUSES,
    normalize_choice,
    normalize_event_type,
)


def test_the_eleven_spec_types() -> None:
    assert EVENT_TYPES == (
        "decision",
        "release",
        "task_completed",
        "plan",
        "change",
        "cancellation",
        "incident",
        "meeting",
        "collaboration",
        "migration",
        "other",
    )


def test_vocabularies() -> None:
    assert SCOPES == ("user", "project", "session")
    assert CRITICALITIES == ("routine", "preference", "identity", "safety")
    assert LIFECYCLE_STATUSES == ("active", "superseded", "forgotten", "archived")
    assert TEMPORAL_STATUSES == ("occurred", "planned", "cancelled", "ongoing", "unknown")
    assert PRECISIONS == ("instant", "day", "month", "year", "range", "unknown")
    assert BASES == ("explicit", "relative", "inferred", "unknown")
    assert RELATION_KINDS == (
        "supersedes",
        "conflicts_with",
        "same_as",
        "before",
        "after",
        "related",
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # every standard type is its own alias
        *[(kind, kind) for kind in EVENT_TYPES],
        # NFKC, case, spaces, _ and - are ignored
        ("Task_Completed", "task_completed"),
        ("task-completed", "task_completed"),
        ("TASK COMPLETED", "task_completed"),
        ("  Decision ", "decision"),
        ("ｄｅｃｉｓｉｏｎ", "decision"),  # full-width, folded by NFKC
        ("Called-Off", "cancellation"),
        # English aliases
        ("decided", "decision"),
        ("taskcompleted", "task_completed"),
        ("completed", "task_completed"),
        ("done", "task_completed"),
        ("todo", "plan"),
        ("planned", "plan"),
        ("released", "release"),
        ("shipped", "release"),
        ("changed", "change"),
        ("switch", "change"),
        ("switched", "change"),
        ("canceled", "cancellation"),
        ("cancelled", "cancellation"),
        ("bug", "incident"),
        ("outage", "incident"),
        ("meetup", "meeting"),
        ("meetings", "meeting"),
        ("collaborate", "collaboration"),
        ("migrated", "migration"),
        # Chinese aliases
        ("决定", "decision"),
        ("决策", "decision"),
        ("计划", "plan"),
        ("变更", "change"),
        ("修改", "change"),
        ("发布", "release"),
        ("版本发布", "release"),
        ("完成", "task_completed"),
        ("任务完成", "task_completed"),
        ("取消", "cancellation"),
        ("事故", "incident"),
        ("故障", "incident"),
        ("会议", "meeting"),
        ("合作", "collaboration"),
        ("协作", "collaboration"),
        ("迁移", "migration"),
        ("其他", "other"),
    ],
)
def test_aliases_normalise(raw: str, expected: str) -> None:
    assert normalize_event_type(raw) == expected


@pytest.mark.parametrize("raw", [None, "", "   ", "birthday", "未知类型", "decision!"])
def test_unknown_or_empty_becomes_other(raw: str | None) -> None:
    assert normalize_event_type(raw) == "other"


def test_every_alias_maps_into_the_standard_set() -> None:
    assert set(EVENT_TYPE_ALIASES.values()) == set(EVENT_TYPES)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("Project", "project"), (" user ", "user"), ("team", "user"), (None, "user"), (3, "user")],
)
def test_normalize_choice_falls_back_to_the_default(raw: object, expected: str) -> None:
    assert normalize_choice(raw, SCOPES, "user") == expected
