"""One event per fact (issue 29): which restatements are the same fact, and the cases that must
never merge — different dates, a negation, a different person (and names, numbers, types)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.event_identity import (
    SAME_FACT_THRESHOLD,
    FactText,
    best_match,
    negated,
    normalise,
    same_fact,
    similarity,
    why_different,
)

MAY_10 = datetime(2026, 5, 10, tzinfo=UTC)
MAY_17 = datetime(2026, 5, 17, tzinfo=UTC)


def fact(
    summary: str, *, kind: str = "decision", who: tuple[str, ...] = ("user",), **kw
) -> FactText:
    return FactText(event_type=kind, summary=summary, participants=who, **kw)


def test_normalise_drops_case_punctuation_spacing_and_the_speaker_label() -> None:
    assert normalise("Maya:  We'll deploy the Billing service on Fly.io!") == (
        "well deploy the billing service on fly io"
    )
    assert normalise("用户：我们决定用 PostgreSQL。") == "我们决定用 postgresql"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("We decided to deploy the billing service on Fly.io.",
         "we decided to deploy the billing service on Fly.io"),
        ("Maya: We use Postgres for the orders database.",
         "We use Postgres for the orders database"),
        ("Let's use pnpm for the frontend.", "Let's use pnpm for the frontend please."),
        ("We use Postgres for the orders database.", "We use Postgres for the orders db."),
        ("我们决定把计费服务部署在Fly.io上。", "我们决定把计费服务部署在Fly.io"),
        ("We decided to deploy the billing service on Fly.io.",
         "We decided to deploy billing on Fly.io."),
        ("I prefer dark mode in every editor.", "I prefer dark mode in all editors."),
        ("The billing service depends on the ledger service.",
         "The billing service depends on the ledger."),
    ],
)  # fmt: skip
def test_restatements_are_the_same_fact(a: str, b: str) -> None:
    assert why_different(fact(a), fact(b)) is None
    assert similarity(a, b) >= SAME_FACT_THRESHOLD


@pytest.mark.parametrize(
    ("new", "old", "reason"),
    [
        # A negation is a change, not a repeat (English and Chinese).
        (fact("We don't use Redis for sessions."), fact("We use Redis for sessions."), "negation"),
        (fact("We no longer use Redis for sessions."), fact("We use Redis for sessions."),
         "negation"),
        (fact("The team never deploys on Fridays."), fact("The team deploys on Fridays."),
         "negation"),
        (fact("我们不再用MySQL做订单库"), fact("我们用MySQL做订单库"), "negation"),
        (fact("我们没有用Redis"), fact("我们用Redis"), "negation"),
        # A different person.
        (fact("Alice owns the billing service and the invoicing pipeline.", kind="other"),
         fact("Bob owns the billing service and the invoicing pipeline.", kind="other"),
         "names_or_numbers"),
        (fact("I moved to the platform team.", who=("Maya",)),
         fact("I moved to the platform team.", who=("Tom",)), "participants"),
        # Different dates: the same words resolved against different weeks.
        (fact("The demo is on Friday.", kind="plan", happened_start=MAY_10),
         fact("The demo is on Friday.", kind="plan", happened_start=MAY_17), "dates"),
        (fact("The demo is on Friday.", kind="plan", happened_start=MAY_10),
         fact("The demo is on Friday.", kind="plan"), "dates"),
        # Other values, numbers, types, a longer statement.
        (fact("We deploy the billing service on Render."),
         fact("We deploy the billing service on Fly.io."), "names_or_numbers"),
        (fact("The gateway runs 6 replicas in production."),
         fact("The gateway runs 5 replicas in production."), "names_or_numbers"),
        (fact("The billing service uses queue2 for invoices (constraints 1 and 2)."),
         fact("The billing service uses queue1 for invoices (constraints 1 and 2)."),
         "names_or_numbers"),
        (fact("Works at the firm.", title="Works at Firm 2"),
         fact("Works at the firm.", title="Works at Firm 1"), "names_or_numbers"),
        (fact("We deploy the billing service on Fly.io.", kind="plan"),
         fact("We deploy the billing service on Fly.io."), "event_type"),
        # One value replaced by another: similar text, another fact.
        (fact("We use Postgres for the payments database."),
         fact("We use Postgres for the orders database."), "substitution"),
        (fact("I prefer light mode in the editor.", kind="other"),
         fact("I prefer dark mode in the editor.", kind="other"), "substitution"),
        (fact("The billing service depends on the auth service."),
         fact("The billing service depends on the ledger service."), "substitution"),
        (fact("我们决定用PostgreSQL做订单服务的数据库。"),
         fact("我们决定用PostgreSQL做账单服务的数据库。"), "substitution"),
        (fact("The api gateway runs on Kubernetes and the billing service runs on Kubernetes too."),
         fact("The api gateway runs on Kubernetes."), "content"),
    ],
)  # fmt: skip
def test_must_not_merge(new: FactText, old: FactText, reason: str) -> None:
    assert why_different(new, old) == reason
    assert not same_fact(new, old)


def test_measured_similarities_behind_the_threshold() -> None:
    """The figures the threshold's documentation quotes (memory/engine/event_identity.py)."""
    assert (
        similarity("I prefer dark mode in every editor.", "I prefer dark mode in all editors.") > 83
    )
    assert similarity(
        "We use Postgres for the orders database.", "We use Postgres for the payments database."
    ) == pytest.approx(87.5)
    assert (
        similarity(
            "我们决定用PostgreSQL做账单服务的数据库。", "我们决定用PostgreSQL做订单服务的数据库。"
        )
        > 95
    )
    assert (
        similarity(
            "The api gateway runs on Kubernetes.",
            "The api gateway runs on Kubernetes and the billing service runs on Kubernetes too.",
        )
        < SAME_FACT_THRESHOLD
    )


def test_negation_words() -> None:
    for text in ["not now", "we don't", "it isn't", "it wasn't", "won't", "didn't", "doesn't",
                 "never", "no longer", "don’t", "我不喜欢", "没有", "别用", "不再"]:  # fmt: skip
        assert negated(text), text
    assert not negated("we use it now")


def test_best_match_picks_the_closest_same_fact() -> None:
    new = fact("We use Postgres for the orders database.")
    candidates = [
        (3, fact("We use Postgres for the orders db.")),
        (5, fact("We use Postgres for the orders database")),
        (7, fact("We don't use Postgres for the orders database.")),
    ]
    assert best_match(new, candidates) == 5
    assert best_match(new, [(7, candidates[2][1])]) is None


APR_13 = datetime(2026, 4, 13, tzinfo=UTC)
APR_20 = datetime(2026, 4, 20, tzinfo=UTC)
APR_30 = datetime(2026, 4, 30, 23, tzinfo=UTC)


def deadline(summary: str, start: datetime, end: datetime = APR_30) -> FactText:
    return fact(summary, kind="plan", who=("Tomasz",), happened_start=start, happened_end=end)


def test_a_deadline_restated_in_another_session_is_the_same_fact() -> None:
    # A deadline's range starts on the day it is said: only its last day compares.
    old = deadline(
        "Hard deadline on our side: the carrier API integration has to be live by April 30.",
        APR_13,
    )
    again = deadline("carrier API integration is still due April 30, nothing changed there", APR_20)
    assert why_different(again, old) is None
    zh_old = deadline("下周三之前要交计量经济的作业", APR_13, APR_20)
    zh_again = deadline("计量经济作业明天就要交了，还差一题没写完", APR_20, APR_20)
    assert why_different(zh_again, zh_old) is None


@pytest.mark.parametrize(
    "new",
    [
        deadline("the quarterly report is due April 30", APR_20),  # another plan, same day
        deadline("The carrier API integration won't be live by April 30", APR_20),  # called off
        deadline("the carrier API integration has to be live by May 7", APR_20, MAY_10),
    ],
)
def test_another_deadline_on_the_day_or_the_plan_on_another_day_is_not(new: FactText) -> None:
    old = deadline("the carrier API integration has to be live by April 30.", APR_13)
    assert why_different(new, old) == "dates"
