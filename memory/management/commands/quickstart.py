"""What `scripts/run.sh` prints before it serves: the URL, a Memory UI login and an agent token
for namespace `demo`, the login and the token each made only on the first start.

The token is StrataGate's usual one (only its hash is stored), labelled RUN_SH_LABEL and bound
to `demo`; while such a token is not revoked, later starts make none and say how to make
another (once it is revoked, the next start makes a new one). The admin's password is printed
once, when the user is made.
"""

from __future__ import annotations

import secrets
import shlex
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from memory.management.actor import command_actor
from memory.models import AgentToken, TokenScope
from memory.services.tokens import token_issue

RUN_SH_LABEL = "scripts/run.sh"
DEMO_NAMESPACE = "demo"
RULE = "=" * 80


def demo_token_exists() -> bool:
    """A token made by scripts/run.sh for the demo namespace, not revoked, is already there."""
    return AgentToken.objects.filter(
        label=RUN_SH_LABEL, namespaces__name=DEMO_NAMESPACE, revoked_at__isnull=True
    ).exists()


class Command(BaseCommand):
    help = (
        "Make the admin login and the demo namespace's agent token on the first start (each "
        "printed once) and print how to use StrataGate; used by scripts/run.sh."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="the URL to show")

    def handle(self, *args: Any, **options: Any) -> None:
        url: str = options["url"].rstrip("/")
        with transaction.atomic():
            password = self._admin_once()
            token = None if demo_token_exists() else self._demo_token()
        self.stdout.write(self._banner(url, password, token))

    def _admin_once(self) -> str | None:
        User = get_user_model()
        if User.objects.filter(is_superuser=True).exists():
            return None
        password = secrets.token_urlsafe(12)
        User.objects.create_superuser("admin", "", password)
        return password

    def _demo_token(self) -> str:
        # An installation token, so README's "First steps" can also change λ with it.
        _, raw = token_issue(
            namespaces=[DEMO_NAMESPACE],
            scope=TokenScope.ADMIN.value,
            label=RUN_SH_LABEL,
            installation=True,
            actor=command_actor(),
        )
        return raw

    def _banner(self, url: str, password: str | None, token: str | None) -> str:
        py = _python()
        lines = ["", RULE, f" StrataGate: {url}/", "-" * 80]
        if password:
            lines += [
                f" Memory UI login  user: admin   password: {password}",
                " (shown once and stored nowhere else; change it with",
                f"  {py} manage.py changepassword admin)",
            ]
        else:
            lines += [
                " Memory UI login: your existing superuser (forgot the password?",
                f"  {py} manage.py changepassword admin)",
            ]
        lines.append("")
        more = f"{py} manage.py create_agent_token --namespace {DEMO_NAMESPACE} --scope read-write"
        if token:
            lines += [
                f' Agent token for namespace "{DEMO_NAMESPACE}" (admin scope, also installation'
                "-wide settings; shown once):",
                f"   {token}",
                f" More tokens: {more}",
            ]
        else:
            lines += [
                f' Agent token for namespace "{DEMO_NAMESPACE}": shown on the first start only',
                " (StrataGate keeps just its hash). Make another with",
                f"   {more}",
            ]
        lines.append(f" Demo data: bash scripts/run.sh --demo, or {py} manage.py load_demo")
        shown = token or "sg_…   # your agent token"
        lines += [
            "",
            ' Try it (README.md "First steps" has more):',
            f"   export URL={url} TOKEN={shown}",
            f"   curl -s -X POST {url}/api/v1/ns/{DEMO_NAMESPACE}/turns \\",
            '     -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\',
            """     -d '{"session_id": "s1", "receipt_id": "r1", "messages": [""",
            """          {"role": "user", "content": "Hello, remember that I prefer tea."},""",
            """          {"role": "assistant", "content": "Noted: tea, not coffee."}]}'""",
            f"   curl -s {url}/api/v1/ns/{DEMO_NAMESPACE}/sessions/s1/blocks "
            '-H "Authorization: Bearer $TOKEN"',
            "",
            f" API docs: {url}/api/docs    Stop: Ctrl-C",
            RULE,
            "",
        ]
        return "\n".join(lines)


def _python() -> str:
    """The interpreter as the user can type it: relative to the project when it is inside."""
    executable = Path(sys.executable)
    try:
        return shlex.quote(str(executable.relative_to(Path(settings.BASE_DIR))))
    except ValueError:
        return shlex.quote(str(executable))
