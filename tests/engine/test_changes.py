"""Change statements and what they supersede (issue 29): `memory.engine.changes`."""

from __future__ import annotations

import pytest

from memory.engine.change_ends import change_supersedes
from memory.engine.changes import parse_change, plain_use, stated_uses

SWITCH = "Switch the billing service from Heroku to Fly.io."
DEPLOY = "We deploy the billing service on Heroku."

# (statement, kind, subject, old, new)
CHANGES = [
    (SWITCH, "switch", "billing service", "Heroku", "Fly.io"),
    ("We decided to switch the billing service from Heroku to Fly.io because it is cheaper.",
     "switch", "billing service", "Heroku", "Fly.io"),
    ("The API moved from Heroku to Render last week.", "switch", "API", "Heroku", "Render"),
    ("Migrate the database from MySQL to PostgreSQL.", "switch", "database", "MySQL", "PostgreSQL"),
    ("Let's migrate the orders DB to Postgres from MySQL.",
     "switch", "orders DB", "MySQL", "Postgres"),
    ("We moved the billing service to Fly.io.", "switch", "billing service", None, "Fly.io"),
    ("MOVE OUR API TO FLY.IO.", "switch", "API", None, "FLY.IO"),
    ("Replace Jenkins with GitHub Actions.", "replace", None, "Jenkins", "GitHub Actions"),
    ("Jenkins was replaced by GitHub Actions.", "replace", None, "Jenkins", "GitHub Actions"),
    ("Instead of Jenkins, use GitHub Actions.", "instead", None, "Jenkins", "GitHub Actions"),
    ("Instead of Jenkins, we'll use CircleCI for the builds.",
     "instead", None, "Jenkins", "CircleCI"),
    ("Our team now uses Linear instead of Jira.", "instead", None, "Jira", "Linear"),
    ("We no longer use Redis.", "stop", None, "Redis", None),
    ("We don't use Redis anymore.", "stop", None, "Redis", None),
    ("We stopped using Redis last month.", "stop", None, "Redis", None),
    ("The API now runs on Fly.io.", "now", "API", None, "Fly.io"),
    ("The billing service is now hosted on AWS.", "now", "billing service", None, "AWS"),
    ("把账单服务从MySQL迁移到PostgreSQL。", "switch", "账单服务", "MySQL", "PostgreSQL"),
    ("我们从阿里云换成了腾讯云。", "switch", None, "阿里云", "腾讯云"),
    ("上个月我们把数据迁移到了新集群。", "switch", "数据", None, "新集群"),
    ("我们不再用Redis了。", "stop", None, "Redis", None),
    ("我们已经不用Redis了。", "stop", None, "Redis", None),
    ("改用pnpm。", "now", None, None, "pnpm"),
    ("以后改用飞书来开会。", "now", None, None, "飞书"),
    ("用GitHub Actions替换Jenkins。", "replace", None, "Jenkins", "GitHub Actions"),
    ("把Jenkins换成GitHub Actions。", "replace", None, "Jenkins", "GitHub Actions"),
    ("账单服务现在跑在Fly.io上。", "now", "账单服务", None, "Fly.io"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "kind", "subject", "old", "new"), CHANGES)
def test_change_statements_parse(
    text: str, kind: str, subject: str | None, old: str | None, new: str | None
) -> None:
    change = parse_change(text)
    assert change is not None, text
    assert (change.kind, change.subject, change.old, change.new) == (kind, subject, old, new)


@pytest.mark.parametrize(
    "text",
    [
        "We won't switch from Heroku to Fly.io.",  # negated
        "Should we move the API from Heroku to Fly.io?",  # a question
        "We're considering switching from Heroku to Fly.io.",  # hedged
        "Maybe replace Jenkins with GitHub Actions.",
        "Heroku's pricing page is confusing.",  # mentions a value, changes nothing
        "We moved to the next item.",  # nothing named
        "Move it to the top of the list.",
        "我们在考虑把账单服务从MySQL迁移到PostgreSQL。",  # 考虑: hedged
        "要不要改用pnpm？",
        "My dad is a retired firefighter.",  # an adjective, not a retirement of a tool
        "We should stop using Heroku now.",  # now, but hedged
        "不用担心了，我来处理。",  # "no need to worry", not a tool dropped
    ],
)
def test_what_is_not_clearly_a_change_parses_as_none(text: str) -> None:
    assert parse_change(text) is None


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [
        ("We deploy the billing service on Heroku.", "billing service", "Heroku"),
        ("We decided to deploy the billing service on Heroku.", "billing service", "Heroku"),
        ("We use Redis for caching.", None, "Redis"),
        ("The billing service uses Redis for sessions.", "billing service", "Redis"),
        ("The search service runs on Heroku.", "search service", "Heroku"),
        ("Let's use Heroku.", None, "Heroku"),
        ("账单服务用MySQL。", "账单服务", "MySQL"),
        ("我们用Redis做缓存。", None, "Redis"),
        ("账单服务部署在Heroku上。", "账单服务", "Heroku"),
        ("我们后端用的是Django。", "后端", "Django"),
        ("用户数据目前存在MongoDB里。", "用户数据", "MongoDB"),
        ("Priya: We use Redis for caching.", None, "Redis"),  # a speaker label is no subject
        # A team function with its tool, the function as the subject (one tool at a time).
        ("Our CI is CircleCI.", "CI", "CircleCI"),
        ("The data warehouse is Snowflake.", "data warehouse", "Snowflake"),
        ("Feature flags are managed in LaunchDarkly.", "Feature flags", "LaunchDarkly"),
        ("We store uploads in S3.", "uploads", "S3"),
        ("We send email through Mailgun.", "email", "Mailgun"),
    ],
)
def test_plain_uses_parse(text: str, subject: str | None, value: str) -> None:
    use = plain_use(text)
    assert use is not None, text
    assert (use.subject, use.value) == (subject, value)


@pytest.mark.parametrize(
    "text",
    [
        "Heroku's pricing page is confusing.",
        "I love how you use color in your paintings.",  # the listener, and no named value
        "We no longer use Redis.",
        "We don't use Redis.",
        "I run every morning in Central Park.",
        "The meeting is on Monday.",
        "我比较喜欢用TypeScript。",  # a preference, not a statement of use
        "我更喜欢用飞书沟通。",
    ],
)
def test_what_states_no_use(text: str) -> None:
    assert plain_use(text) is None


SUPERSEDES = [
    (SWITCH, DEPLOY),
    ("Switch the billing service from Heroku to Fly.io.",
     "We decided to deploy the billing service on Heroku."),
    ("Switch the billing service from Heroku to Fly.io.", "For billing, we use Heroku."),
    ("We moved the billing service to Fly.io.", "We deploy the billing service on Heroku."),
    ("Switch the billing service from Render to Fly.io.",
     "Switch the billing service from Heroku to Render."),  # an earlier change's new value
    ("We no longer use Redis.", "We use Redis for caching."),
    ("We no longer use Redis.", "The billing service uses Redis for sessions."),
    ("The API now runs on Fly.io.", "The API runs on Heroku."),
    ("Replace Jenkins with GitHub Actions.", "We use Jenkins for CI."),
    ("Our team now uses Linear instead of Jira.", "We use Jira for tickets."),
    ("把账单服务从MySQL迁移到PostgreSQL。", "账单服务用MySQL。"),
    ("我们不再用Redis了。", "我们用Redis做缓存。"),
    ("改用pnpm。", "我们用npm。"),  # the same slot, no subject
    # The subject named as the use's purpose, not before its verb.
    ("我们把部署从Jenkins换成了GitLab。", "项目用Jenkins做部署。"),
    # "不再用A，改用B" ends A (and names B); a speaker label is not a subject.
    ("李雷: 以后不再用Redis了，缓存改用Memcached。", "我们用Redis做缓存。"),
    # "instead of A we'll use B" without a comma.
    ("For the mobile app, instead of Firebase we'll use Supabase.", "We use Firebase for auth."),
    # Everyday ways of saying it (2026-12-06): retiring, a now-marker on a plain use, a team
    # function's tool, a data kind's store, upgrades, and Chinese without 把/从.
    ("We dropped Jira and use Linear for tickets now.", "Our team uses Jira for tickets."),
    ("Jenkins has been retired in favour of GitHub Actions.", "Builds run on Jenkins."),
    ("Payments now go through Adyen.", "Payments go through Stripe."),
    ("Logs are shipped to Datadog from now on.", "Logs go to Papertrail."),
    ("Going forward we deploy the frontend to Netlify.", "We deploy the frontend to Vercel."),
    ("Uploads are stored in Cloudflare R2 now, not S3.", "We store uploads in S3."),
    ("The mobile app switched its auth to Auth0.", "The mobile app uses Firebase for auth."),
    ("We switched email providers to Postmark.", "We send email through Mailgun."),
    ("The search service was ported to OpenSearch.",
     "The search service depends on Elasticsearch."),
    ("持续集成已经换成GitHub Actions了。", "我们用Jenkins做持续集成。"),
    ("我们现在改用飞书沟通了。", "我们团队用钉钉沟通。"),
    ("数据库从MySQL升级成了TiDB。", "数据库用的是MySQL。"),
    ("前端已经用React重写了。", "前端用Vue写的。"),
    ("日志现在都进Loki了，不用ELK了。", "日志存在ELK里。"),
    ("监控系统替换成了Prometheus。", "监控用的是Zabbix。"),
    # 2026-12-06: the old value named, of a function, ends a use said of the whole project; a
    # subject in other words ends when they share a word; a channel is a function; "我现在全"
    # is no part of the subject.
    ("Instead of Sentry, error tracking now goes through Rollbar.",
     "We use Sentry for crashes, and the docs live in Notion."),
    ("Release tracking no longer uses Jira.", "We track release tickets in Jira."),
    ("报表统计不再用Tableau了。", "报表展示一直用的Tableau。"),
    ("短信渠道改用网易云信了。", "短信渠道用的是阿里云短信。"),
    ("文档我现在全改用语雀了。", "写文档我一般用Confluence。"),
    # 2026-12-06 (fifth round): issues are a function, so Jira "instead of" ends tracking them
    # in Jira (this pair was a "use of another kind" while "track issues in" stated no use).
    ("Our team now uses Linear instead of Jira.", "We track issues in Jira."),
]  # fmt: skip
NOT_SUPERSEDED = [
    # Mentions the old value in passing.
    ("Switch the billing service from Heroku to Fly.io.", "Heroku's pricing page is confusing."),
    ("We no longer use Redis.", "Redis had an outage yesterday."),
    # A different subject.
    ("Switch the billing service from Heroku to Fly.io.", "The search service runs on Heroku."),
    ("The API now runs on Fly.io.", "The billing service runs on Heroku."),
    ("把账单服务从MySQL迁移到PostgreSQL。", "订单服务用MySQL。"),
    # A general statement when the change names one subject: the rest may still be there.
    ("Switch the billing service from Heroku to Fly.io.", "We deploy on Heroku."),
    # Already says the value is not used; or the use is of another kind.
    ("We no longer use Redis.", "We no longer use Redis."),
    ("The API now runs on Fly.io.", "The API uses Redis for caching."),
    ("改用pnpm。", "我们用Redis做缓存。"),
    # A function's new tool leaves the other tools of the same thing alone.
    ("Payments now go through Adyen.", "The checkout service uses Redis."),
    # The old value named, but of another subject with no word in common.
    ("把数据仓库从Hive迁到StarRocks。", "订单服务用Hive。"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "old"), SUPERSEDES)
def test_a_change_supersedes_the_use_it_ends(change: str, old: str) -> None:
    parsed = parse_change(change)
    assert parsed is not None
    assert change_supersedes(parsed, [old])


@pytest.mark.parametrize(("change", "old"), NOT_SUPERSEDED)
def test_a_change_leaves_other_events_alone(change: str, old: str) -> None:
    parsed = parse_change(change)
    assert parsed is not None
    assert not change_supersedes(parsed, [old])


def test_each_clause_of_a_statement_states_its_own_use() -> None:
    uses = stated_uses("We use PagerDuty for paging, and the runbooks live in Confluence.")
    assert sorted(u.value for u in uses) == ["Confluence", "PagerDuty"]
    assert stated_uses("We use PagerDuty, and PagerDuty pages us.") == stated_uses(
        "We use PagerDuty."
    )
