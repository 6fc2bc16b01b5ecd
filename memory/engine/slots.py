"""The slot lexicon: which tool choices are exclusive ("one package manager per project").

Offline extraction uses it to tell that "Let's switch to pnpm" replaces "Use npm", and offline
graph projection uses it to key the single-valued `uses` edge and the project fact. A slot is a
role a project fills with exactly one value at a time; tools outside the lexicon have no slot and
never displace one another. Matching is on whole words, case-insensitive, with canonical names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

# "slot: Canonical = spelling | spelling ; Canonical ; …" — a bare entry is its own lower-cased
# spelling. Continuation lines are indented.
_LEXICON: Final = """
package_manager: npm ; pnpm ; Yarn = yarn ; Bun = bun
python_package_manager: pip ; Poetry = poetry ; uv ; Pipenv = pipenv ; Conda = conda
database: PostgreSQL = postgres | postgresql ; MySQL ; SQLite = sqlite | sqlite3 ;
    MongoDB = mongodb | mongo ; MariaDB ; DynamoDB ; CockroachDB
cache: Redis ; Memcached ; Valkey
frontend_framework: React = react | reactjs ; Vue = vue | vuejs | vue.js ;
    Svelte = svelte | sveltekit ; Angular ; SolidJS ; Preact
mobile_framework: React Native = react native ; Flutter ; Ionic ; Xamarin
backend_framework: Django ; Flask ; FastAPI ; Express = Express | expressjs | express.js ; Rails ;
    Spring Boot ; NestJS ; Laravel
language: Python ; TypeScript ; JavaScript ; Go = Go | golang ; Rust ; Java ; Kotlin ; Ruby ;
    Swift ; PHP ; C# ; Scala ; Elixir
bundler: Webpack ; Vite ; Rollup ; esbuild ; Parcel ; Turbopack
test_framework: Jest ; Vitest ; Mocha ; pytest
css_framework: Tailwind CSS = tailwind | tailwindcss ; Bootstrap ; Bulma
orm: Prisma ; Drizzle ; SQLAlchemy ; TypeORM ; Sequelize
hosting: AWS ; Google Cloud = gcp | google cloud ; Azure ; Vercel ; Netlify ; Heroku ; Fly.io ;
    Render ; Railway ; DigitalOcean ; Hetzner ; Cloudflare Pages ; 阿里云 = 阿里云 | aliyun ;
    腾讯云 ; 华为云
ci: GitHub Actions ; GitLab CI ; CircleCI ; Jenkins ; Buildkite ; Travis CI ; TeamCity ;
    Bitbucket Pipelines
editor: Vim ; Neovim = neovim | nvim ; Emacs ; VS Code = vs code | vscode ; IntelliJ IDEA =
    intellij | intellij idea ; PyCharm ; Sublime Text ; Zed
chat: Slack ; Microsoft Teams = microsoft teams | ms teams ; Mattermost ; Discord ; Zulip ;
    飞书 = 飞书 | feishu | lark ; 钉钉 = 钉钉 | dingtalk ; 企业微信 = 企业微信 | wecom
issue_tracker: Jira ; Linear ; YouTrack ; Asana ; Trello ; ClickUp ; 禅道 ; Shortcut
logging: ELK ; Loki ; Papertrail ; Splunk ; Graylog ; Logtail
monitoring: Prometheus ; Zabbix ; Nagios ; Datadog ; New Relic
paging: PagerDuty ; Opsgenie
error_tracking: Sentry ; Rollbar ; Bugsnag
product_analytics: Mixpanel ; Amplitude ; PostHog ; Google Analytics ; Plausible
email_delivery: Mailgun ; Postmark ; SendGrid ; Amazon SES = amazon ses | ses ; Resend
payments: Stripe ; Adyen ; Braintree ; PayPal
auth_provider: Auth0 ; Okta ; Keycloak ; Cognito ; Clerk
search_engine: Elasticsearch ; OpenSearch ; Algolia ; Meilisearch ; Typesense ; Solr
message_queue: Kafka ; RabbitMQ ; SQS = sqs | amazon sqs ; NATS ; Pulsar
object_storage: S3 = s3 | amazon s3 ; Cloudflare R2 = cloudflare r2 | r2 ; MinIO ;
    Google Cloud Storage = google cloud storage | gcs ; Backblaze B2
file_sharing: Google Drive = google drive | gdrive ; Dropbox ; OneDrive ; SharePoint ;
    iCloud Drive = icloud | icloud drive
"""
# Spellings that are also everyday English words count only when written capitalised.
_CAPITALISED_ONLY: Final = frozenset(
    {
        "go",
        "swift",
        "express",
        "parcel",
        "bootstrap",
        "mocha",
        "drizzle",
        "ruby",
        "java",
        "rails",
        "render",
        "railway",
        "zed",
        "linear",
        "shortcut",
        "resend",
        "clerk",
        "discord",
        "teams",
    }
)
# "Go" is also the commonest English verb: it counts as the language only when capitalised and
# not followed by a word that makes it the verb ("go with", "Go ahead").
_GO_VERB_FOLLOWERS: Final = re.compile(
    r"\s+(?:with|to|ahead|for|back|through|over|on|into|out|home|away|and|get)\b", re.IGNORECASE
)
# Words that mark the value a sentence moves *away from* ("from npm", "instead of npm").
_OLD_VALUE_BEFORE: Final = re.compile(
    r"(?:\bfrom|\boff(?:\s+of)?|\binstead\s+of|\brather\s+than|\bover|\bno\s+longer(?:\s+\w+){0,2}|\bdrop|"
    # "not on AWS", "aren't using Terraform", "isn't hosted on Heroku", "doesn't depend on Redis"
    r"(?:\bnot|n't)(?:\s+(?:\w+ly|use|need|run|using|running|hosted|deployed|on|in|with|depend"
    r"|rely|host|deploy|store|call|talk|to)){0,2}|"
    r"\bditch|\breplace|\breplacing|\bswap(?:s|ped|ping)?(?:\s+out)?|\bstopped\s+(?:using|running)"
    r"|\bagainst|\bruled\s+out|\b(?:nobody|no\s+one)\s+(?:\w+\s+)?(?:uses|needs|runs|touches)"
    r"|\brejected|\bvetoed|\bpassed\s+on"
    r"|\bquit\s+using|\bgot\s+rid\s+of|\b(?:dropped|ditched|retired|abandoned)"
    r"|从|不再(?:使用|采用|用)|不用|没有?(?:使用|用)|而不是|替换"
    r"|不(?:再)?(?:跑在|部署在|运行在|托管在))\s*$",
    re.IGNORECASE,
)
# "把MongoDB换成了PostgreSQL": the value between 把 and the verb of replacing is left behind.
_BA_BEFORE: Final = re.compile(r"把\s*$")
_REPLACED_AFTER: Final = re.compile(r"\s*(?:换成|改成|替换成|换为|改为|迁移到|迁到|切换到|切到)")
_NEW_VALUE_BEFORE: Final = re.compile(
    # "Trello got replaced by Linear", "Jira was swapped out for Linear": the passive's agent.
    r"(?:\breplaced\s+by|\bswapped\s+(?:out\s+)?for|\bsuperseded\s+by|\bgave\s+way\s+to"
    r"|\bto|\bwith|\buse|\busing|\badopt|\bin\s+favou?r\s+of|迁到了?|迁移到了?|改用|换成|改成|改为|切换到|迁移到|就用|用)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class SlotChoice:
    """One value a sentence chooses for one slot, e.g. package_manager = pnpm."""

    slot: str
    value: str


def _parse_lexicon(text: str) -> dict[str, tuple[str, str]]:
    spellings: dict[str, tuple[str, str]] = {}
    for paragraph in re.split(r"\n(?=\S)", text.strip()):
        slot, _, body = paragraph.partition(":")
        for entry in body.split(";"):
            canonical, eq, rest = entry.partition("=")
            canonical = " ".join(canonical.split())
            names = rest.split("|") if eq else [canonical]
            for name in names:
                spellings[" ".join(name.lower().split())] = (slot.strip(), canonical)
    return spellings


SLOT_SPELLINGS: Final[Mapping[str, tuple[str, str]]] = MappingProxyType(_parse_lexicon(_LEXICON))
_TERM: Final = re.compile(
    r"(?<![A-Za-z0-9_.#-])("
    + "|".join(
        re.escape(n).replace(r"\ ", r"\s+") for n in sorted(SLOT_SPELLINGS, key=len, reverse=True)
    )
    + r")(?![A-Za-z0-9_#]|\.[A-Za-z0-9])",
    re.IGNORECASE,
)


def slot_of(name: str) -> tuple[str, str] | None:
    """(slot, canonical name) of a tool spelling, or None when the tool has no slot."""
    return SLOT_SPELLINGS.get(" ".join(name.lower().split()))


@dataclass(frozen=True, slots=True)
class _Mention:
    start: int
    slot: str
    value: str
    role: str  # "new", "old" or "plain"


def _mentions(text: str) -> list[_Mention]:
    found: list[_Mention] = []
    for match in _TERM.finditer(text):
        spelled = match.group(1)
        lowered = spelled.lower()
        if lowered in _CAPITALISED_ONLY and not spelled[0].isupper():
            continue
        if lowered == "go" and _GO_VERB_FOLLOWERS.match(text, match.end()):
            continue
        hit = slot_of(spelled)
        if hit is None:
            continue
        before = text[max(0, match.start() - 24) : match.start()]
        role = "plain"
        if _OLD_VALUE_BEFORE.search(before) or (
            _BA_BEFORE.search(before) and _REPLACED_AFTER.match(text, match.end())
        ):
            role = "old"
        elif _NEW_VALUE_BEFORE.search(before):
            role = "new"
        found.append(_Mention(match.start(), hit[0], hit[1], role))
    return found


def slot_choices(text: str) -> list[SlotChoice]:
    """The slot values `text` chooses, at most one per slot, in order of first mention.

    Within a slot the value introduced as the target ("to pnpm", "use pnpm", "改用pnpm") wins over
    a plain mention, and a value marked as the one left behind ("from npm", "instead of npm") is
    never chosen. "switched from npm to pnpm" therefore chooses pnpm.
    """
    by_slot: dict[str, list[_Mention]] = {}
    for mention in _mentions(text):
        by_slot.setdefault(mention.slot, []).append(mention)
    choices: list[tuple[int, SlotChoice]] = []
    for slot, mentions in by_slot.items():
        candidates = [m for m in mentions if m.role == "new"] or [
            m for m in mentions if m.role == "plain"
        ]
        if candidates:
            chosen = candidates[-1] if candidates[0].role == "new" else candidates[0]
            choices.append((mentions[0].start, SlotChoice(slot, chosen.value)))
    return [choice for _, choice in sorted(choices, key=lambda pair: pair[0])]


_PROJECT_NAME: Final = (
    re.compile(
        r"\b(?i:for|in|on|of|with)\s+(?i:the\s+|our\s+|my\s+)?"
        # (not "in our Jira Service Management queue": a product's own name)
        r"([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})\s+(?i:project|app|repo|repository|service)\b"
        r"(?!\s+[A-Z])"
    ),
    re.compile(r"\b[Pp]roject\s+([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})"),
    re.compile(r"(?:改用|使用|采用|换成|用)?([A-Za-z][\w.-]{1,40}|[\u4e00-\u9fff]{2,8}?)\s*项目"),
)
_NOT_PROJECT_NAMES: Final = frozenset({"this", "that", "the", "our", "my", "a", "new", "same"})


def project_name(text: str) -> str | None:
    """The project a sentence names ("for the Atlas project" → "Atlas"), or None."""
    for pattern in _PROJECT_NAME:
        match = pattern.search(text)
        if match:
            name = match.group(1).strip()
            if not name.isascii():
                # "我们在做一个电商项目" → "电商": the name after the clause's function words.
                name = _ZH_FUNCTION_CHARS.split(name)[-1]
                if len(name) < 2 or slot_of(name) is not None:
                    continue  # "改用飞书项目": a product, not a project of ours
            if name.lower() not in _NOT_PROJECT_NAMES and not name.startswith(("这个", "那个")):
                return name
    return None


_ZH_FUNCTION_CHARS: Final = re.compile(r"[我你他她它们在做是用个的了这那把和与跟给要将从到]")
