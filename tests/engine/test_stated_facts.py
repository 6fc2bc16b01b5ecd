"""Relation facts as comparable keys (issue 29): a restatement in other words is the same fact,
a new value of a single-valued relation replaces the old one, and nothing else does."""

from __future__ import annotations

import pytest

from memory.engine.stated_facts import Fact, names_agree, replaces, restates, stated_facts


def _facts(text: str, speaker: str = "Priya") -> set[tuple[str, str, str]]:
    return {(f.subject, f.role, f.value) for f in stated_facts(text, speaker)}


def test_the_speakers_i_is_their_name_and_hosting_is_one_role() -> None:
    assert _facts("Priya: I own the billing service.") == {("priya", "owns", "billing service")}
    assert _facts("Atlas runs on GCP.") == _facts("Atlas is deployed on Google Cloud.")
    assert _facts("我住在温哥华，离公司很近。", "陈静") == {("陈静", "lives_in", "温哥华")}


def test_a_negated_or_hedged_statement_states_no_fact() -> None:
    assert _facts("We don't use Kafka.") == set()
    assert _facts("Should we move Atlas to GCP?") == set()


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Reminder: I own the billing service.", "Quick context: I own the billing service."),
        ("So yes, Dana is the maintainer of the invoice worker now.",
         "Dana maintains the invoice worker from now on."),
        ("Just to confirm, Atlas runs on GCP now.", "Atlas now runs on GCP."),
        ("订单服务现在部署在腾讯云上。", "我们把订单服务从阿里云迁移到腾讯云了。"),
        ("调度现在用Dagster。", "我们把调度从Airflow换成了Dagster。"),
        ("我还是更喜欢用TypeScript。", "我比较喜欢用TypeScript，不太喜欢写纯JavaScript。"),
        ("我在腾讯工作，做产品经理。", "我在腾讯工作。"),
    ],
)  # fmt: skip
def test_a_restatement_in_other_words_restates(new: str, old: str) -> None:
    assert restates(stated_facts(new, "Priya"), stated_facts(old, "Priya"), new)


@pytest.mark.parametrize(
    ("new", "old", "speakers"),
    [
        ("I own the billing service.", "I own the billing service.", ("Priya", "Tom")),
        ("Atlas runs on GCP.", "Atlas runs on AWS.", ("Priya", "Priya")),
        # A change with an old value is news, even when its new value was said before.
        ("We moved Atlas from AWS to GCP.", "Atlas runs on GCP.", ("Priya", "Priya")),
        # Saying more is not a restatement.
        ("The billing service runs on Fly.io and uses PostgreSQL.",
         "The billing service runs on Fly.io.", ("Priya", "Priya")),
    ],
)  # fmt: skip
def test_another_value_speaker_or_a_change_is_not_a_restatement(
    new: str, old: str, speakers: tuple[str, str]
) -> None:
    assert not restates(stated_facts(new, speakers[0]), stated_facts(old, speakers[1]), new)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Dana maintains the invoice worker from now on.", "Marco maintains the invoice worker."),
        ("We moved to Seattle last weekend!", "I live in Portland, by the way."),
        ("Atlas now runs on GCP.", "Atlas runs on AWS."),
        ("Priya moved from the platform team to the data team.",
         "Priya joined the platform team this week."),
        ("张伟离开了数据组，数据平台现在由赵敏负责。", "张伟是数据平台的负责人。"),
        ("我现在在字节跳动工作。", "我在腾讯工作。"),
        # Taking over what someone maintained ends it (owns and maintains, one hand-over).
        ("Nadia has taken over the export worker from Luis.", "Luis maintains the export worker."),
    ],
)  # fmt: skip
def test_a_new_value_of_a_single_valued_relation_replaces(new: str, old: str) -> None:
    assert replaces(stated_facts(new, "Sam"), stated_facts(old, "Sam"), new)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Atlas uses Grafana.", "Atlas uses Jenkins."),  # a project uses many tools
        ("Dana owns the billing service.", "Marco owns the invoice worker."),
        ("Atlas depends on the auth service.", "Atlas runs on AWS."),
        ("Tom lives in Oslo.", "I live in Portland."),  # another person
        # The old event said more than the new one replaces: it stays.
        ("Atlas runs on GCP.", "Atlas runs on AWS and depends on the auth service."),
        ("Luis leads the export worker.", "Nadia maintains the export worker."),  # another role
    ],
)
def test_other_relations_people_or_partial_overlap_replace_nothing(new: str, old: str) -> None:
    assert not replaces(stated_facts(new, "Sam"), stated_facts(old, "Sam"), new)


def test_an_empty_fact_set_neither_restates_nor_replaces() -> None:
    old = frozenset({Fact("atlas", "host", "aws")})
    assert not restates(frozenset(), old, "Thanks!")
    assert not replaces(frozenset(), old, "Thanks!")


def test_a_membership_is_not_read_as_where_someone_runs() -> None:
    assert _facts("Bob moved to the search team of Vega last week.") == {
        ("bob", "member_of", "search team")
    }


@pytest.mark.parametrize(
    ("new", "old", "agree"),
    [
        ("Just to confirm, Atlas runs on GCP now.", "Atlas now runs on GCP.", True),
        ("Reminder: I own the billing service.", "Quick context: I own the billing service.", True),
        # The same reading, another name inside the clause: not a restatement.
        ("Bob moved to the search team of Vega.", "Bob moved to the search team of Orion.", False),
    ],
)
def test_names_inside_a_clause_must_agree(new: str, old: str, agree: bool) -> None:
    assert names_agree(new, old) is agree
