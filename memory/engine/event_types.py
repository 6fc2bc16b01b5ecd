"""The closed vocabularies of events (SPEC §5) and the normaliser for free-form event types.

Models and imports write event types in many spellings and two languages; everything stored goes
through `normalize_event_type`, so search filters and charts see exactly the eleven SPEC types.
The alias table extends the original's (notes §5.3) with common English verb forms and Chinese
synonyms; anything unknown becomes "other" rather than an error.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

EVENT_TYPES: Final = (
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
DEFAULT_EVENT_TYPE: Final = "other"

SCOPES: Final = ("user", "project", "session")
CRITICALITIES: Final = ("routine", "preference", "identity", "safety")
LIFECYCLE_STATUSES: Final = ("active", "superseded", "forgotten", "archived")
TEMPORAL_STATUSES: Final = ("occurred", "planned", "cancelled", "ongoing", "unknown")
# A planned or cancelled event states nothing current yet: it ends, restates or contradicts
# nothing, and projects no current fact.
NOT_CURRENT: Final = frozenset({"planned", "cancelled"})
# The event types that choose a value ("use pnpm", "switch to Fly.io"): a later one of them may
# replace an earlier one's choice (slots, relation values).
SLOT_EVENT_TYPES: Final = frozenset({"decision", "change", "migration"})
PRECISIONS: Final = ("instant", "day", "month", "year", "range", "unknown")
BASES: Final = ("explicit", "relative", "inferred", "unknown")
RELATION_KINDS: Final = ("supersedes", "conflicts_with", "same_as", "before", "after", "related")

# Keys are already normalised (NFKC, lower-case, no whitespace/_/-).
# One line per type: "type: alias alias …" (split on whitespace).
_ALIAS_TABLE: Final = """
decision: decision decisions decide decided choice chosen resolution 决定 决策 决议 拍板 选定 定了
release: release released releases launch launched ship shipped deploy deployed deployment
    publish published 发布 版本发布 上线 发版 发行
task_completed: taskcompleted taskdone completed complete completion done finished finish
    accomplished 完成 任务完成 已完成 做完 搞定
plan: plan plans planned planning todo schedule scheduled goal intention intent deadline
    upcoming 计划 打算 安排 规划 待办 目标
change: change changes changed switch switched update updated modification modify modified
    replace replaced 变更 修改 更改 改变 变化 切换 更换
cancellation: cancellation cancel cancelled canceled calledoff abandoned dropped 取消 作废 放弃
incident: incident incidents bug outage failure crash error accident problem issue
    故障 事故 宕机 崩溃 问题
meeting: meeting meetings meet meetup call standup sync interview 会议 开会 见面 聚会 碰头
collaboration: collaboration collaborate collaborated partnership teamwork pairing 协作 合作
migration: migration migrate migrated migrating move moved relocation 迁移 搬迁 搬家
other: other misc 其他 其它
"""


def _parse_alias_table(table: str) -> dict[str, str]:
    aliases: dict[str, str] = {}
    kind = ""
    for word in table.split():
        if word.endswith(":"):
            kind = word[:-1]
            aliases[kind] = kind
        else:
            aliases[word] = kind
    return aliases


EVENT_TYPE_ALIASES: Final[Mapping[str, str]] = MappingProxyType(_parse_alias_table(_ALIAS_TABLE))
_STRIP: Final = re.compile(r"[\s_\-]+")


def normalize_key(raw: str) -> str:
    """NFKC, lower-case, and remove whitespace, `_` and `-` (the SPEC §5.1 normal form)."""
    return _STRIP.sub("", unicodedata.normalize("NFKC", raw).lower())


def normalize_event_type(raw: str | None) -> str:
    """Map free-form input to one of `EVENT_TYPES`; empty or unknown input gives "other"."""
    if not raw:
        return DEFAULT_EVENT_TYPE
    key = normalize_key(raw)
    return EVENT_TYPE_ALIASES.get(key, DEFAULT_EVENT_TYPE)


def normalize_choice(raw: object, allowed: tuple[str, ...], default: str) -> str:
    """`raw` lower-cased and trimmed if it is one of `allowed`, else `default` (never raises)."""
    if isinstance(raw, str):
        value = unicodedata.normalize("NFKC", raw).strip().lower().replace("-", "_")
        if value in allowed:
            return value
    return default
