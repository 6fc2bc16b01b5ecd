"""The copy-paste snippets of the "Connect an agent" page: an agent's SDK, curl and environment
pointed at the model proxy. Plain text (the template escapes it); the token is the one just
created, or the placeholder `sg_…` so a snippet is never mistaken for a working key."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.utils.translation import gettext as _

TOKEN_PLACEHOLDER = "sg_…"
QUESTION = "What did we decide about the database?"
OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_MODEL = "claude-sonnet-4-20250514"
ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class Snippet:
    key: str  # the element id's stem and the test's handle
    title: str
    note: str  # one sentence under the title
    text: str


def _openai_python(url: str, token: str) -> str:
    return f"""from openai import OpenAI

client = OpenAI(
    base_url="{url}",
    api_key="{token}",
)
reply = client.chat.completions.create(
    model="{OPENAI_MODEL}",
    messages=[{{"role": "user", "content": "{QUESTION}"}}],
)
print(reply.choices[0].message.content)"""


def _anthropic_python(url: str, token: str) -> str:
    return f"""from anthropic import Anthropic

client = Anthropic(
    base_url="{url}",
    api_key="{token}",
)
reply = client.messages.create(
    model="{ANTHROPIC_MODEL}",
    max_tokens=1024,
    messages=[{{"role": "user", "content": "{QUESTION}"}}],
)
print(reply.content[0].text)"""


def _body(**fields: object) -> str:
    return json.dumps(
        {**fields, "messages": [{"role": "user", "content": QUESTION}]}, ensure_ascii=False
    )


def _openai_curl(url: str, token: str) -> str:
    return f"""curl {url}/chat/completions \\
  -H "Authorization: Bearer {token}" \\
  -H "Content-Type: application/json" \\
  -d '{_body(model=OPENAI_MODEL)}'"""


def _anthropic_curl(url: str, token: str) -> str:
    return f"""curl {url}/v1/messages \\
  -H "x-api-key: {token}" \\
  -H "anthropic-version: {ANTHROPIC_VERSION}" \\
  -H "Content-Type: application/json" \\
  -d '{_body(model=ANTHROPIC_MODEL, max_tokens=1024)}'"""


def _environment(**variables: str) -> str:
    return "\n".join(f'export {name}="{value}"' for name, value in variables.items())


def connect_snippets(*, openai_url: str, anthropic_url: str, token: str = "") -> list[Snippet]:
    """The page's snippets, in the order it shows them. Namespace names and hosts hold no
    quote or shell character (the namespace pattern, ALLOWED_HOSTS), so the text is pasteable
    as it is."""
    key = token or TOKEN_PLACEHOLDER
    return [
        Snippet(
            "openai-python",
            _("OpenAI Python SDK"),
            _("Any OpenAI-compatible client works the same way: change its base URL and key."),
            _openai_python(openai_url, key),
        ),
        Snippet(
            "anthropic-python",
            _("Anthropic Python SDK"),
            _("The SDK sends the key as x-api-key; the proxy accepts it there."),
            _anthropic_python(anthropic_url, key),
        ),
        Snippet(
            "openai-curl",
            _("curl, OpenAI protocol"),
            _('Chat completions; add "stream": true for a stream.'),
            _openai_curl(openai_url, key),
        ),
        Snippet(
            "anthropic-curl",
            _("curl, Anthropic protocol"),
            _('Messages; add "stream": true for a stream.'),
            _anthropic_curl(anthropic_url, key),
        ),
        Snippet(
            "env-openai",
            _("Environment: agents on the OpenAI SDK"),
            _("Agents and tools built on the OpenAI SDK read these at start."),
            _environment(OPENAI_BASE_URL=openai_url, OPENAI_API_KEY=key),
        ),
        Snippet(
            "env-anthropic",
            _("Environment: agents on the Anthropic SDK"),
            _("Agents and tools built on the Anthropic SDK read these at start."),
            _environment(ANTHROPIC_BASE_URL=anthropic_url, ANTHROPIC_API_KEY=key),
        ),
        Snippet(
            "env-claude-code",
            _("Environment: Claude Code"),
            _(
                "Claude Code sends ANTHROPIC_AUTH_TOKEN as a bearer token, which the proxy "
                "accepts too; set it instead of ANTHROPIC_API_KEY."
            ),
            _environment(ANTHROPIC_BASE_URL=anthropic_url, ANTHROPIC_AUTH_TOKEN=key),
        ),
    ]
