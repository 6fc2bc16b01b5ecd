"""Supersession beyond the fixed slots (issue 29), through the API: a change statement
supersedes the earlier event stating the use it ends, whichever extractor stored the events
(offline rules or a model), history kept."""

from __future__ import annotations

import json

import pytest

from memory.models import Event, EventRelation, EventStatus, RelationKind
from tests.conftest import ApiClient
from tests.services.statements import BLOCK_TURNS, event_quoting, statement_session

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("We deploy the billing service on Heroku.",
         "Switch the billing service from Heroku to Fly.io."),
        # The reviewer's example: a "deploy X on A" decision, then "switch X from A to B".
        ("We decided to deploy the billing service on Heroku.",
         "We switched the billing service from Heroku to Fly.io."),
        ("We use Redis for caching.", "We no longer use Redis."),
        ("账单服务用MySQL。", "把账单服务从MySQL迁移到PostgreSQL。"),
        # A function outsourced to a firm, then moved to another (issue 29, round 42).
        ("Sequencing gets sent out to Azenta.",
         "Sequencing got switched from Azenta to Novogene."),
        # Who looks after a part of the business, then who takes it over.
        ("订舱这块一直是小林在管。", "订舱现在交给新来的阿杰。"),
        ("保安那块都是老黄在管。", "老黄上个月退休了，现在保安那块归小吴管。"),
        # What was used before, then what replaced it; a named product being dropped.
        ("会员系统那边用的是健客云。", "会员系统我们之前用健客云，现在换成氧气管家了。"),
        ("Our practice management software is Dentrix.",
         "Big one though: we're ditching Dentrix."),
        # Round 43: what ended then what replaced it in the next sentence; a supplier changed at
        # all the team's sites; a plan called off; Traditional Chinese.
        ("Invoicing's all in Xero.",
         "Big admin change — we've stopped using Xero. Invoicing moved over to QuickBooks."),
        ("Reference lab work goes out to IDEXX.",
         "We moved all four clinics from IDEXX over to Antech as of yesterday."),
        ("We're planning a village-hall tour in July.", "The village-hall tour's off though."),
        ("我们打算今年暑假开个夜间班，专门给上班族。", "夜间班决定不开了，教练人手不够。"),
        ("出貨都走黑貓宅急便。", "物流我們改用新竹物流了，不再用黑貓宅急便了。"),
        # Round 44: an area of work or a team handed to someone new.
        ("Night grooming is led by Tamsin Holt.", "Devin Marsh is running night grooming now."),
        ("Morag Lindsay heads up crewing.", "Jenna Kerr took over crewing on Monday."),
        ("Ken Adeyemi looks after Lustre.",
         "Staff update — Lustre is Ravi Sundaram's responsibility now."),
        ("Shay Pettit runs carpentry.",
         "Ray Tanaka, who was on Marco's tile crew, is running carpentry now."),
        ("夜班组一直是黄丽在带。", "夜班组现在交给何秀梅带。"),
        ("广州安装队是周师傅带。", "广州安装队现在是他徒弟潘宇在带。"),
        ("后期剪辑目前在Premiere里做。", "后期那块Premiere已经彻底不用了，全换成达芬奇。"),
        ("会员和课时卡都放在有赞上管。", "会员系统有赞不用了，现在全在趣运动上。"),
        ("板材主要从兔宝宝进。", "板材现在全改从千年舟进了，兔宝宝那边价格谈不拢，不合作了。"),
    ],
)  # fmt: skip
def test_a_change_in_a_later_session_supersedes_the_earlier_use(
    owner: ApiClient, drain, before: str, after: str
) -> None:
    statement_session(owner, drain, "s1", before, start=1, day=0)
    statement_session(owner, drain, "s2", after, start=1 + BLOCK_TURNS, day=7)

    old, new = event_quoting(before), event_quoting(after)
    assert new.status == EventStatus.ACTIVE
    assert old.status == EventStatus.SUPERSEDED
    assert old.superseded_by_id == new.pk
    assert EventRelation.objects.filter(
        from_event=new, to_event=old, kind=RelationKind.SUPERSEDES
    ).exists()
    assert old.summary.endswith(before)  # history kept: content untouched, still searchable
    found = owner.get(f"/ns/proj/events/{old.pk}").json()
    assert (found["event"]["status"], found["event"]["superseded_by"]) == ("superseded", new.pk)


@pytest.mark.parametrize(
    "unrelated",
    [
        "Heroku's pricing page is confusing.",  # mentions the old value in passing
        "The search service runs on Heroku.",  # a different subject
    ],
)
def test_a_change_leaves_unrelated_events_active(owner: ApiClient, drain, unrelated: str) -> None:
    statement_session(
        owner, drain, "s1", "We deploy the billing service on Heroku.", start=1, day=0
    )
    statement_session(owner, drain, "s2", unrelated, start=1 + BLOCK_TURNS, day=1)
    statement_session(
        owner,
        drain,
        "s3",
        "Switch the billing service from Heroku to Fly.io.",
        start=1 + 2 * BLOCK_TURNS,
        day=7,
    )

    assert event_quoting("We deploy the billing service").status == EventStatus.SUPERSEDED
    others = [e for e in Event.objects.all() if unrelated in e.summary]
    assert all(e.status == EventStatus.ACTIVE for e in others)


@pytest.fixture
def model(settings, fake_openai):
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    return fake_openai


def test_the_rule_applies_to_the_model_path_too(owner: ApiClient, model, drain) -> None:
    """The model proposes no relation; the service still supersedes on the change it states."""

    def answer(request: dict) -> str:
        payload = json.loads(request["messages"][-1]["content"])
        first = payload["target_block_messages"][0]
        if "Switch" in first["content"]:
            title, summary = "Billing to Fly.io", "The team moved billing from Heroku to Fly.io."
        else:
            title, summary = "Billing on Heroku", "The team deploys the billing service on Heroku."
        event = {
            "title": title, "summary": summary, "event_type": "decision",
            "source_message_ids": [first["id"]], "quotes": [first["content"]],
            "temporal_status": "occurred", "scope": "project", "criticality": "routine",
        }  # fmt: skip
        return json.dumps(
            {"title": title, "tags": [], "summary": summary, "key_points": [summary],
             "should_extract": True, "events": [event]}
        )  # fmt: skip

    model.default = answer
    statement_session(
        owner, drain, "s1", "We deploy the billing service on Heroku.", start=1, day=0
    )
    statement_session(
        owner,
        drain,
        "s2",
        "Switch the billing service from Heroku to Fly.io.",
        start=1 + BLOCK_TURNS,
        day=7,
    )

    old = Event.objects.get(title="Billing on Heroku")
    new = Event.objects.get(title="Billing to Fly.io")
    assert (old.status, old.superseded_by_id) == (EventStatus.SUPERSEDED, new.pk)
