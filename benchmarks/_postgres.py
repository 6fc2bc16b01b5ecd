"""Throwaway PostgreSQL databases for the benchmarks that run on PostgreSQL: each names its
database in a `--pg-url`, which must carry a marker word in its name because it is dropped."""

from __future__ import annotations

import ipaddress
import socket
import urllib.parse


def loopback(url: str) -> str:
    """The host of `url`, refused unless it is a loopback address (the benchmarks load what
    they reach)."""
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError as exc:
        raise SystemExit(f"cannot resolve {host!r}: {exc}") from exc
    if not addresses or not all(ipaddress.ip_address(a).is_loopback for a in addresses):
        raise SystemExit(f"{url}: the benchmarks only target loopback addresses")
    return host


def database_name(url: str, marker: str) -> str:
    """The database `url` names, refused unless `marker` is in its name: it is dropped, so never
    a database that may hold real data."""
    name = urllib.parse.urlsplit(url).path.lstrip("/")
    if marker not in name or not name.replace("_", "").isalnum():
        raise SystemExit(f"{url}: the database name must contain {marker!r} (it is dropped)")
    return name


def recreate(url: str, marker: str, *, drop_only: bool = False) -> str:
    """Drop the database `url` names (closing its connections) and, unless `drop_only`, create
    it empty; returns its name."""
    import psycopg

    name = database_name(url, marker)
    admin = urllib.parse.urlsplit(url)._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')
    return name
