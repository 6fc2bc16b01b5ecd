"""Which earlier uses a change ends (issue 29: supersession beyond the fixed slots): the
matching half of `memory.engine.changes`, which reads the statements. The rules are in that
module's docstring; `change_supersedes` is what `memory.services.supersession` asks about a
bounded set of the namespace's recent active events.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from memory.engine.change_terms import ARTICLES, HAN, VERSION, folded, same_value, value_key
from memory.engine.changes import HOSTING, Change, Use, stated_uses
from memory.engine.offline_entities import function_noun
from memory.engine.slots import slot_of

__all__ = ["change_supersedes"]

# Words that say what kind of thing a subject is, not which: "the billing service" and "billing"
# name the same subject; "the service" alone names none to compare.
_GENERIC: Final = frozenset(
    {"servi", "app", "appli", "proje", "syste", "serve", "repo", "repos", "codeb", "stack",
     "platf", "backe", "front", "infra"}
)  # fmt: skip
_WORD: Final = re.compile(r"[^\W_]+", re.UNICODE)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(folded(text)) if w not in ARTICLES}


def _same_subject(x: str, s: str) -> bool:
    if HAN.search(x) or HAN.search(s):
        han_x, han_s = folded(x).replace("的", ""), folded(s).replace("的", "")
        return han_x in han_s or han_s in han_x
    stems_x, stems_s = _stems(x), _stems(s)
    core_x, core_s = stems_x - _GENERIC, stems_s - _GENERIC
    if core_x and core_s:
        return core_x <= core_s or core_s <= core_x
    return stems_x == stems_s


def _related_subject(x: str, s: str) -> bool:
    """Two subjects that share a word; in Chinese their first two characters, one the other's
    short form (温控 of 温度监控), or two functions (物流 and 出货, said with the same old tool)."""
    if HAN.search(x) or HAN.search(s):
        han_x, han_s = folded(x).replace("的", ""), folded(s).replace("的", "")
        if len(han_x) < 2 or len(han_s) < 2:
            return False
        short, long = sorted((han_x, han_s), key=len)
        return (
            han_x[:2] == han_s[:2]
            or _in_order(short, long)
            or (function_noun(han_x) and function_noun(han_s))
        )
    return bool((_stems(x) - _GENERIC) & (_stems(s) - _GENERIC))


def _in_order(short: str, long: str) -> bool:
    """Whether the characters of `short` appear in `long` in the same order (温控 in 温度监控)."""
    rest = iter(long)
    return all(c in rest for c in short)


def _function(subject: str) -> bool:
    """A team function ("CI", "payments", "监控系统"), or a person's ("记笔记", "记账"): served
    by one tool at a time."""
    return (
        function_noun(subject)
        or function_noun(_SYSTEM_ZH.sub("", subject))
        or subject.endswith(_OWN_FUNCTIONS_ZH)
    )


# What a person keeps with one tool at a time; their uses are the person's, not the team's, so
# they are no team function for the graph (`offline_entities.function_noun`).
_OWN_FUNCTIONS_ZH: Final = ("笔记", "记账", "记东西", "买菜")


_SYSTEM_ZH: Final = re.compile(r"(?:系统|平台|工具|服务|通道|渠道)$")


def _mentions_subject(text: str, x: str) -> bool:
    if HAN.search(x):
        return folded(x).replace("的", "") in folded(text).replace("的", "")
    if HAN.search(text):  # "我们用Jenkins做CI": a Latin word between Han characters
        latin = rf"(?<![A-Za-z0-9]){re.escape(folded(x))}(?![A-Za-z0-9])"
        return re.search(latin, folded(text)) is not None
    wanted = _stems(x) - _GENERIC or _stems(x)
    return bool(wanted) and wanted <= _stems(text)


def _slot(value: str) -> str | None:
    hit = slot_of(value_key(value))
    return hit[0] if hit is not None else None


def _named_first(short: str, long: str) -> bool:
    """ "the Honda" of "We sold the Honda …" is the "Honda Fit" driven before: a value said by
    the first word(s) of the longer one."""
    a, b = value_key(short).split(), value_key(long).split()
    if HAN.search(short) and len(a) == len(b) == 1:  # "印象笔记" of "印象笔记记东西"
        return len(a[0]) >= 2 and b[0].startswith(a[0]) and a[0] != b[0]
    return 0 < len(a) < len(b) and b[: len(a)] == a


def _other_version(new: str, old: str) -> bool:
    """ "Unity 6" after "Unity 2022 LTS": the same tool at another version, one at a time."""
    bare_new, bare_old = VERSION.sub("", new), VERSION.sub("", old)
    return bare_new != new and bare_old != old and same_value(bare_new, bare_old)


def _ends(change: Change, use: Use, text: str) -> bool:
    same_slot = False
    if change.old is not None:
        if not (same_value(use.value, change.old) or _named_first(change.old, use.value)):
            return False
        if change.new is not None and same_value(use.value, change.new):
            return False
    else:
        if change.new is None or same_value(use.value, change.new):
            return False
        slot = _slot(change.new)
        same_slot = (slot is not None and slot == _slot(use.value)) or _other_version(
            change.new, use.value
        )
        # Where a thing runs has one value; so has the tool of a team function ("our CI",
        # "监控系统"): any other tool a thing uses may sit beside the new one.
        # A function's tool is one whatever the verb said it with ("We use Travis for CI", then
        # "We've moved CI over to GitHub Actions").
        same_role = change.subject is not None and (
            (change.role == use.role == HOSTING) or _function(change.subject)
        )
        if not (same_slot or same_role):
            return False
    if change.subject is None:
        return True
    if use.subject is not None and _same_subject(change.subject, use.subject):
        return True
    if use.subject is None and change.old is None and _function(change.subject) and same_slot:
        # "我们用MySQL", then "数据库已经换成PostgreSQL了": the project's database, changed.
        return True
    if change.old is not None:
        # The old value named ("instead of PagerDuty, on-call now goes through Opsgenie"): a use
        # said of the whole project ("we use PagerDuty for paging") ends when a function of it
        # changes tool, and a subject said in other words ends too when the two share a word
        # ("实验记录用MLflow" / "实验管理不再用MLflow").
        if use.subject is None and _function(change.subject):
            return True
        if use.subject is not None and _related_subject(change.subject, use.subject):
            return True
    # "把调度从Airflow换成Dagster" ends "数据平台用Airflow做调度": the subject named as the use's
    # purpose rather than before its verb.
    return _mentions_subject(text, change.subject)


def change_supersedes(change: Change, texts: Iterable[str]) -> bool:
    """True when an earlier event, by any of its texts (summary, title, quotes), states a use
    that `change` ends (the rules in the module docstring)."""
    for text in texts:
        if not text:
            continue
        for use in stated_uses(text):
            if _ends(change, use, text):
                return True
    return False
