"""How the admin audit log names an operator's management command."""

from __future__ import annotations

import getpass


def command_actor() -> str:
    """`command:<OS user>` (`command:?` where the OS cannot say who runs it)."""
    try:
        return f"command:{getpass.getuser()}"
    except (KeyError, OSError):
        return "command:?"
