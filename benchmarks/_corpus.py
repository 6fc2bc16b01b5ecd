"""A large synthetic namespace for search benchmarks, written with bulk_create in minutes rather
than pushed through ingest (100k turns over HTTP would take hours and measure ingest, not search).

Text is drawn from a seeded vocabulary with Zipf-like frequencies (s = 1): ~80 English function
words first (most are the analyzer's stop words, as in real text), then ~300 domain words, then
a long tail of pronounceable pseudo-words, names and a few dates; about 5% of messages carry a
Chinese sentence. Sessions of 250 turns (2 messages each) are sealed into ready 6-turn blocks
with all six views; events hang on those blocks and cite their messages; graph nodes carry facts
(a fifth of them superseded) and edges that cite events. Nothing is indexed here: the caller runs
`memory.search.reindex_namespace` and times it.

Imported only after django.setup().
"""

from __future__ import annotations

import random
from bisect import bisect_left
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any

from django.conf import settings
from django.db import models, transaction

from memory.engine.event_types import EVENT_TYPES
from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    Event,
    EventStatus,
    GraphEdge,
    GraphFact,
    GraphItemStatus,
    GraphNode,
    Message,
    Namespace,
    Session,
    Turn,
    ViewSource,
)

_FUNCTION_TEXT = """
the of and to a in is it you that we was for on are with as i be this have but not
at they from or by an what can will all if so do about there would which our when your more up
out them some just like then how could also into than now only its other been these two may
should because any where over after most very much"""
_DOMAIN_TEXT = """release deploy database migration schedule budget team meeting review test server
client cache query index latency error bug fix feature design customer payment invoice contract
report dashboard metric alert incident outage backup storage network cluster region config
setting token account user password policy security audit compliance vendor license pricing
roadmap milestone sprint ticket issue branch merge commit pipeline build artifact container image
kubernetes docker python javascript rust postgres sqlite redis kafka queue worker job cron
timeout retry limit quota memory disk throughput performance benchmark profile trace log monitor
graph search ranking model prompt embedding vector agent session context summary decision plan
task deadline priority owner lead manager engineer designer analyst support sales marketing legal
finance hiring interview onboarding training documentation wiki handbook office travel flight
hotel conference workshop demo launch beta feedback survey week month quarter year morning
friday monday tomorrow yesterday today version upgrade rollback hotfix patch schema field table
column row record import export sync partner invoice refund churn growth revenue cost saving
estimate forecast risk blocker dependency approval signoff proposal draft spec requirement
scope change request experiment result analysis insight goal objective target baseline progress
status update note reminder question answer idea concern problem solution option tradeoff
latency spike regression alerting paging oncall rotation escalation postmortem runbook playbook
checklist template workflow process standup retro planning grooming estimate velocity capacity
backlog epic story subtask reviewer approver maintainer contributor repository package library
framework endpoint route handler middleware proxy gateway balancer certificate domain dns email
notification webhook callback event stream batch cursor pagination filter sort aggregate report
chart export csv json yaml markdown slide deck doc sheet calendar invite agenda minutes action
item follow decision vote consensus feedback priority urgent critical minor major blocker
frankfurt london berlin paris tokyo singapore toronto sydney staging production sandbox"""
_CHINESE_TEXT = """数据库 部署 发布 预算 测试 会议 项目 客户 问题 方案 服务器 性能 迁移 版本
计划 团队 需求 设计 文档 安全 上线 回滚 监控 告警 延迟 缓存 索引 查询 用户
权限 合同 付款 报告 进度 风险 负责人 周五 下周 明天 今天 本月 季度 目标 结果
分析 反馈 优化 故障 修复 备份 存储 网络 集群 配置 日志 流程 审批 评审 里程碑
任务 截止 优先级 产品 经理 工程师 设计师 支持 销售 市场 财务 招聘 培训"""
_FIRST_TEXT = """
alice bob carol dan erin frank grace heidi ivan judy mallory nina oscar peggy quentin
rupert sybil trent uma victor wendy xavier yara zoe amir bea chen dmitri elena farid gita hiro
ines jonas kai lena mateo noor olga pablo ravi sofia tomas ursula vera wei yusuf zara"""
_LAST_TEXT = """moreau tanaka okafor schmidt novak garcia rossi kowalski nguyen larsen silva haddad
ivanova fischer dubois kim patel walsh berg costa mori ahmed lindqvist petrov"""
_FACT_KEYS_TEXT = "role team location status focus owner language deadline budget priority"
_RELATIONS_TEXT = "works_on reports_to uses depends_on located_in owns member_of"
_ONSETS_TEXT = "b c d f g h j k l m n p r s t v w z br ch dr fl gr kl pr sh st tr"
FUNCTION, DOMAIN, CHINESE = _FUNCTION_TEXT.split(), _DOMAIN_TEXT.split(), _CHINESE_TEXT.split()
FIRST, LAST, ONSETS = _FIRST_TEXT.split(), _LAST_TEXT.split(), _ONSETS_TEXT.split()
FACT_KEYS, RELATIONS = _FACT_KEYS_TEXT.split(), _RELATIONS_TEXT.split()
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
CODAS = ["", "", "", "n", "r", "s", "l", "m", "x", "t", "nd", "rk"]
SESSION_TURNS = 250
START = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)


class Vocabulary:
    """Seeded Zipf sampler over function words, domain words and a pseudo-word tail."""

    def __init__(self, rng: random.Random, size: int = 20000) -> None:
        words = list(dict.fromkeys(FUNCTION + DOMAIN))
        seen = set(words)
        while len(words) < size:
            word = "".join(
                rng.choice(ONSETS) + rng.choice(VOWELS) for _ in range(rng.randint(2, 3))
            ) + rng.choice(CODAS)
            if word not in seen:
                seen.add(word)
                words.append(word)
        self.words = words
        self.content_from = len(FUNCTION)
        self.cum = list(accumulate(1.0 / r for r in range(1, len(words) + 1)))
        self.zh_cum = list(accumulate(1.0 / r for r in range(1, len(CHINESE) + 1)))
        self.rng = rng

    def draw(self, k: int, *, content: bool = False) -> list[str]:
        low = self.cum[self.content_from - 1] if content else 0.0
        top = self.cum[-1]
        picks = [low + self.rng.random() * (top - low) for _ in range(k)]
        return [self.words[min(bisect_left(self.cum, p), len(self.words) - 1)] for p in picks]

    def sentence(self, low: int, high: int) -> str:
        words = self.draw(self.rng.randint(low, high))
        return " ".join(words).capitalize() + "."

    def chinese(self) -> str:
        picks = self.rng.choices(CHINESE, cum_weights=self.zh_cum, k=self.rng.randint(4, 9))
        return "".join(picks) + "。"

    def name(self) -> str:
        return f"{self.rng.choice(FIRST).title()} {self.rng.choice(LAST).title()}"

    def message(self, role: str, when: datetime) -> str:
        rng = self.rng
        sentences = [
            self.sentence(5, 16) for _ in range(rng.randint(1, 2 if role == "user" else 4))
        ]
        if rng.random() < 0.15:
            sentences.insert(0, f"{self.name()} asked about it.")
        if rng.random() < 0.10:
            day = when + timedelta(days=rng.randint(-20, 20))
            sentences.append(f"Due {day:%d %B %Y}." if rng.random() < 0.5 else f"On {day.date()}.")
        if rng.random() < 0.05:
            sentences.append(self.chinese())
        return " ".join(sentences)


def _bulk[M: models.Model](model: type[M], rows: list[M]) -> list[M]:
    return model._default_manager.bulk_create(rows, batch_size=2000)


def _views(block: Block, texts: list[str]) -> list[BlockView]:
    raw = "\n".join(texts)
    levels = {5: raw, 4: raw[:1200], 3: raw[:600], 2: raw[:300], 1: raw[:160], 0: raw[:80]}
    return [
        BlockView(
            block=block, level=lv, content=c, tokens=len(c) // 4 + 1, produced_by=ViewSource.OFFLINE
        )
        for lv, c in levels.items()
    ]


@transaction.atomic
def build(name: str, *, messages: int, events: int, nodes: int, seed: int) -> dict[str, Any]:
    """Create the namespace and everything in it; returns counts and a few handles."""
    rng = random.Random(seed)
    vocab = Vocabulary(rng)
    block_turns = settings.STRATAGATE_BLOCK_TURNS
    total_turns = max(1, messages // 2)
    n_sessions = max(1, -(-total_turns // SESSION_TURNS))
    namespace = Namespace.objects.create(name=name, current_turn=total_turns)
    sessions = _bulk(
        Session,
        [
            Session(
                namespace=namespace,
                external_id=f"session-{i:04d}",
                turn_count=min(SESSION_TURNS, total_turns - i * SESSION_TURNS),
                last_activity_at=START
                + timedelta(minutes=10 * min(total_turns, (i + 1) * SESSION_TURNS)),
            )
            for i in range(n_sessions)
        ],
    )
    block_rows: list[Block] = []
    for s in sessions:
        for seq in range(1, s.turn_count // block_turns + 1):
            block_rows.append(
                Block(
                    namespace=namespace,
                    session=s,
                    sequence=seq,
                    first_turn=(seq - 1) * block_turns + 1,
                    last_turn=seq * block_turns,
                    status=BlockStatus.READY,
                    anchor_level=2,
                    anchor_position=seq,
                    ready_position=seq,
                    should_extract=True,
                    ready_at=START,
                )
            )
    blocks = _bulk(Block, block_rows)
    block_of = {(b.session_id, b.sequence): b for b in blocks}
    turn_rows: list[Turn] = []
    for i, s in enumerate(sessions):
        for t in range(1, s.turn_count + 1):
            n = i * SESSION_TURNS + t
            turn_rows.append(
                Turn(
                    namespace=namespace,
                    session=s,
                    session_turn=t,
                    namespace_turn=n,
                    occurred_at=START + timedelta(minutes=10 * n),
                    block=block_of.get((s.pk, (t - 1) // block_turns + 1)),
                )
            )
    turns = _bulk(Turn, turn_rows)
    message_rows = [
        Message(
            namespace=namespace,
            session_id=turn.session_id,
            turn=turn,
            position=pos,
            role=role,
            content=vocab.message(role, turn.occurred_at),
            created_at=turn.occurred_at,
        )
        for turn in turns
        for pos, role in enumerate(("user", "assistant"))
    ][:messages]
    all_messages = _bulk(Message, message_rows)
    by_block: dict[int, list[Message]] = {}
    turn_by_id = {t.pk: t for t in turns}
    for m in all_messages:
        block_id = turn_by_id[m.turn_id].block_id
        if block_id is not None:
            by_block.setdefault(block_id, []).append(m)
    _bulk(BlockView, [v for b in blocks for v in _views(b, [m.content for m in by_block[b.pk]])])

    event_rows: list[Event] = []
    chosen_blocks = [rng.choice(blocks) for _ in range(events)]
    for block in chosen_blocks:
        last = turn_by_id[by_block[block.pk][-1].turn_id]
        happened = last.occurred_at + timedelta(days=rng.randint(-30, 30))
        roll = rng.random()
        event_rows.append(
            Event(
                namespace=namespace,
                title=" ".join(vocab.draw(rng.randint(4, 8), content=True)).capitalize(),
                summary=vocab.sentence(8, 20) + " " + vocab.sentence(6, 14),
                event_type=rng.choice(EVENT_TYPES),
                tags=vocab.draw(2, content=True),
                quotes=[vocab.sentence(4, 10)] if rng.random() < 0.3 else [],
                participants=[vocab.name() for _ in range(rng.randint(1, 3))],
                criticality="safety" if roll < 0.001 else "routine",
                pinned=0.001 <= roll < 0.002,
                status=(
                    EventStatus.SUPERSEDED
                    if roll > 0.97
                    else EventStatus.FORGOTTEN
                    if roll > 0.95
                    else EventStatus.ARCHIVED
                    if roll > 0.94
                    else EventStatus.ACTIVE
                ),
                source_block=block,
                formed_turn=last.namespace_turn,
                mentioned_at=last.occurred_at,
                happened_start=happened if rng.random() < 0.5 else None,
                temporal_text=f"{happened:%d %B}" if rng.random() < 0.3 else "",
                last_adopted_turn=last.namespace_turn,
                adoptions=rng.randint(1, 4),
            )
        )
    all_events = _bulk(Event, event_rows)
    through = Event.source_messages.through
    _bulk(
        through,
        [
            through(event_id=e.pk, message_id=m.pk)
            for e in all_events
            for m in rng.sample(by_block[e.source_block_id], 2)
        ],
    )

    node_rows: list[GraphNode] = []
    keys: set[str] = set()
    while len(node_rows) < nodes:
        kind = rng.choices(["person", "project", "tool"], weights=[6, 3, 1])[0]
        label = vocab.name() if kind == "person" else vocab.draw(1, content=True)[0].title()
        label = label if kind == "person" else f"{label} {kind.title()}"
        if kind == "person" and f"{kind}:{label.lower()}" in keys:
            given, family = label.split(" ", 1)
            label = f"{given} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {family}"  # a namesake
        key = f"{kind}:{label.lower()}"
        if key in keys:
            continue
        keys.add(key)
        tags = vocab.draw(2, content=True)
        node_rows.append(
            GraphNode(namespace=namespace, key=key, name=label, node_type=kind, tags=tags)
        )
    all_nodes = _bulk(GraphNode, node_rows)
    fact_rows: list[GraphFact] = []
    edge_rows: list[GraphEdge] = []
    for node in all_nodes:
        for key in rng.sample(FACT_KEYS, rng.randint(2, 5)):
            old = rng.random() < 0.2
            turn = rng.randint(1, total_turns)
            fact_rows.append(
                GraphFact(
                    namespace=namespace,
                    node=node,
                    key=key,
                    value=" ".join(vocab.draw(rng.randint(1, 4), content=True)),
                    status=GraphItemStatus.SUPERSEDED if old else GraphItemStatus.ACTIVE,
                    valid_from=START + timedelta(minutes=10 * turn),
                    valid_from_turn=turn,
                    valid_to_turn=turn + 50 if old else None,
                )
            )
        for _ in range(rng.randint(1, 3)):
            turn = rng.randint(1, total_turns)
            edge_rows.append(
                GraphEdge(
                    namespace=namespace,
                    from_node=node,
                    to_node=rng.choice(all_nodes),
                    relation=rng.choice(RELATIONS),
                    valid_from=START + timedelta(minutes=10 * turn),
                    valid_from_turn=turn,
                )
            )
    facts = _bulk(GraphFact, fact_rows)
    edges = _bulk(GraphEdge, edge_rows)
    for model, items, column in (
        (GraphFact, facts, "graphfact_id"),
        (GraphEdge, edges, "graphedge_id"),
        (GraphNode, all_nodes, "graphnode_id"),
    ):
        link = model.source_events.through
        rows = []
        for item in items:
            for e in rng.sample(all_events, rng.randint(1, 2)):
                rows.append(link(**{column: item.pk, "event_id": e.pk}))
        _bulk(link, rows)
    return {
        "namespace": namespace,
        "vocab": vocab,
        "messages": all_messages,
        "events": all_events,
        "nodes": all_nodes,
        "counts": {
            "sessions": len(sessions),
            "turns": len(turns),
            "blocks": len(blocks),
            "messages": len(all_messages),
            "events": len(all_events),
            "graph_nodes": len(all_nodes),
            "graph_facts": len(facts),
            "graph_edges": len(edges),
            "pinned_events": sum(1 for e in all_events if e.pinned),
            "safety_events": sum(1 for e in all_events if e.criticality == "safety"),
        },
    }


def queries(rng: random.Random, built: dict[str, Any], count: int) -> list[tuple[str, str]]:
    """(category, query) pairs that read like an agent's questions, drawn from the corpus."""
    vocab: Vocabulary = built["vocab"]
    messages: list[Message] = built["messages"]
    events: list[Event] = built["events"]
    nodes: list[GraphNode] = built["nodes"]
    stop = set(FUNCTION)
    chinese = [m for m in messages if "。" in m.content]
    out: list[tuple[str, str]] = []
    while len(out) < count:
        roll = rng.random()
        if roll < 0.45:
            words = [w.strip(".,").lower() for w in rng.choice(messages).content.split()]
            words = [w for w in words if w.isalpha() and w.isascii() and w not in stop]
            if len(words) < 2:
                continue
            picked = " ".join(rng.sample(words, min(len(words), rng.randint(2, 4))))
            template = rng.choice(["{}", "what did we decide about {}?", "{} status", "why {}"])
            out.append(("message_words", template.format(picked)))
        elif roll < 0.65:
            event = rng.choice(events)
            title = event.title.lower().split()
            out.append(("event_title", " ".join(rng.sample(title, min(3, len(title))))))
        elif roll < 0.75:
            event = rng.choice(events)
            who = rng.choice(event.participants)
            out.append(("participant", f"when did {who} {rng.choice(event.title.split()).lower()}"))
        elif roll < 0.85:
            node = rng.choice(nodes)
            out.append(("graph_node", f"what is {node.name}'s {rng.choice(FACT_KEYS)}"))
        elif roll < 0.93 and chinese:
            text = rng.choice(chinese).content.split("。")[0].split()[-1]
            start = rng.randrange(max(1, len(text) - 4))
            out.append(("chinese", text[start : start + rng.randint(3, 6)]))
        else:
            common = vocab.words[vocab.content_from : vocab.content_from + 40]
            out.append(("common_words", " ".join(rng.sample(common, 3))))
    return out
