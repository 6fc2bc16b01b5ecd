"""What the offline relation rules name (`offline_relations`, English; `offline_relations_zh`,
Chinese): an entity and its type, a relation between two, and the known technologies."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from memory.engine.slots import slot_of

AMBIGUOUS: Final = ""
ME: Final = "\x00me"  # the speaker's own "I"/"我": the caller puts the speaker's name in
KNOWN_TOOLS: Final = frozenset(
    """
    kubernetes k8s docker render railway heroku vercel netlify cloudflare fly.io aws gcp azure
    digitalocean hetzner linode ovh scaleway vultr fargate ecs eks gke aks supabase firebase kafka
    rabbitmq nats elasticsearch opensearch
    clickhouse cassandra snowflake bigquery redshift airflow spark s3 ec2 lambda rds terraform
    ansible nginx linux grafana prometheus sentry datadog slack jira confluence notion github
    gitlab bitbucket stripe twilio auth0 okta graphql grpc celery sidekiq openai pytorch
    tensorflow node.js nodejs deno 阿里云 腾讯云 华为云 飞书 钉钉 企业微信 tidb etcd mqtt zeromq
    kinesis flink hadoop trino dbt looker tableau metabase argocd istio traefik haproxy figma
    obsidian ros gazebo matlab taro flutter swiftui airtable 1password bitwarden lastpass todoist
    evernote onenote excel 微信 支付宝 语雀 腾讯会议 禅道 tapd
    """.split()  # noqa: SIM905
)
TEAM_NOUNS: Final = r"(?:team|squad|group|department|guild|division|crew|chapter)"


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    type: str  # person | project | organization | tool | place, or AMBIGUOUS


@dataclass(frozen=True, slots=True)
class Relation:
    subject: Entity
    relation: str
    object: Entity


def known_tool(name: str) -> str | None:
    """The canonical name of a known technology ("postgres" → "PostgreSQL"), or None."""
    hit = slot_of(name)
    if hit is not None:
        return hit[1]
    spelled = " ".join(name.split())
    return spelled if spelled.lower() in KNOWN_TOOLS else None


def employer_of(relation: Relation) -> Relation:
    """ "Tom joined Globex": joining a named organisation, not a team, is an employer."""
    if relation.relation == "member_of" and not re.search(
        rf"(?i:{TEAM_NOUNS})$|(?:组|团队|部门|小组|中心)$", relation.object.name
    ):
        return Relation(relation.subject, "works_at", relation.object)
    return relation
