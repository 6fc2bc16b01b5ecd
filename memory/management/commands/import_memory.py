"""Import another AI's memories (or a chat export, or a StrataGate dump) from a file: preview
with a progress bar, a table of proposed actions, then commit after asking (or with --yes)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from memory.errors import StrataGateError
from memory.management.actor import command_actor
from memory.models import ImportBatch, ImportStatus, JobStatus, ProcessingJob
from memory.selectors.imports import ImportOut, import_out
from memory.services.imports import Choice, import_commit, import_create, import_undo
from memory.services.imports.formats import FORMATS
from memory.services.jobs import job_run, jobs_drain
from memory.services.namespaces import namespace_get_or_create

POLL_SECONDS = 0.2


class Command(BaseCommand):
    help = "Preview and commit an import into a namespace (or undo one with --undo ID)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", help="the file to import ('-' reads stdin)")
        parser.add_argument("--namespace", required=True)
        parser.add_argument("--format", default="auto", choices=FORMATS)
        parser.add_argument("--top-k", type=int, default=5)
        parser.add_argument("--yes", action="store_true", help="commit without asking")
        parser.add_argument(
            "--accept-proposed",
            action="store_true",
            help="also apply low-confidence proposals (otherwise they are ignored)",
        )
        parser.add_argument(
            "--allow-large", action="store_true", help="lift the 4 MiB limit (operator dumps)"
        )
        parser.add_argument("--undo", type=int, metavar="IMPORT_ID", help="undo a committed import")
        parser.add_argument(
            "--drain",
            action="store_true",
            help="after committing, run the queued processing jobs here (no worker needed)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            namespace = namespace_get_or_create(name=options["namespace"])
            if options["undo"] is not None:
                self._undo(namespace.pk, options["undo"])
                return
            if not options["file"]:
                raise CommandError("give a FILE to import (or --undo IMPORT_ID)")
            text = self._read(options["file"])
            batch = import_create(
                namespace=namespace,
                text=text,
                fmt=options["format"],
                top_k=options["top_k"],
                created_by=command_actor(),
                check_limits=not options["allow_large"],
            )
            self.stdout.write(f"import {batch.pk}: {batch.total} candidates ({batch.format})")
            self._preview(batch)
            view = import_out(ImportBatch.objects.get(pk=batch.pk))
            self._table(view)
            if view.status not in (ImportStatus.READY, ImportStatus.AWAITING_CONFIRMATION):
                raise CommandError(f"the preview ended as {view.status}: {view.job}")
            if not options["yes"] and not self._confirm():
                self.stdout.write(f"not committed; import {batch.pk} stays in preview")
                return
            choices = []
            if options["accept_proposed"]:
                choices = [
                    Choice(d.index, d.action, d.target_event_ids or None)
                    for d in view.decisions
                    if d.requires_confirmation and d.action
                ]
            result = import_commit(batch=batch, choices=choices, actor=command_actor())
        except StrataGateError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        if options["drain"]:
            jobs_drain()
        self.stdout.write(
            f"committed import {batch.pk}: {len(result.created_event_ids)} events created, "
            f"{len(result.changed_event_ids)} changed, {len(result.session_ids)} sessions; "
            f"undo with: manage.py import_memory --namespace {namespace.name} --undo {batch.pk}"
        )

    def _read(self, name: str) -> str:
        if name == "-":
            return sys.stdin.read()
        path = Path(name)
        if not path.is_file():
            raise CommandError(f"{name}: no such file")
        return path.read_text(encoding="utf-8")

    def _preview(self, batch: ImportBatch) -> None:
        """Run the preview job here (a running db_worker may take it instead) and show
        progress until every candidate is decided."""
        job_id = batch.meta.get("job_id")
        if job_id is None:
            return

        def work() -> None:
            try:
                while True:
                    outcome = job_run(job_id)
                    if outcome in ("succeeded", "failed", "done", "missing"):
                        return
                    time.sleep(POLL_SECONDS)  # a retry waits for its backoff, or a worker has it
            finally:
                connections.close_all()

        worker = threading.Thread(target=work, name=f"import-{batch.pk}", daemon=True)
        worker.start()
        while worker.is_alive():
            self._bar(batch.pk)
            worker.join(POLL_SECONDS)
        self._bar(batch.pk)
        self.stderr.write("")
        job = ProcessingJob.objects.get(pk=job_id)
        if job.status == JobStatus.FAILED:
            raise CommandError(f"the preview job failed: {job.error_preview}")

    def _bar(self, batch_id: int) -> None:
        batch = ImportBatch.objects.get(pk=batch_id)
        width = 30
        filled = width * batch.processed // max(batch.total, 1)
        self.stderr.write(
            f"\r[{'#' * filled}{'-' * (width - filled)}] {batch.processed}/{batch.total}", ending=""
        )
        self.stderr.flush()

    def _table(self, view: ImportOut) -> None:
        self.stdout.write(f"{'#':>3}  {'action':<9} {'conf':>4}  {'?':1}  {'targets':<14} title")
        for d in view.decisions:
            confidence = "" if d.confidence is None else f"{d.confidence:.2f}"
            targets = ",".join(str(i) for i in d.target_event_ids) or "-"
            title = str(d.candidate.get("title", ""))[:60]
            mark = "?" if d.requires_confirmation else ""
            self.stdout.write(
                f"{d.index:>3}  {d.action or '-':<9} {confidence:>4}  {mark:1}  "
                f"{targets:<14} {title}"
            )
        waiting = view.requires_confirmation_count
        if waiting:
            self.stdout.write(
                f"{waiting} row(s) marked ? have confidence < 0.85: they are ignored unless "
                "you pass --accept-proposed."
            )

    def _confirm(self) -> bool:
        try:
            answer = input("Commit this import? [y/N] ")
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")

    def _undo(self, namespace_id: int, import_id: int) -> None:
        batch = ImportBatch.objects.filter(namespace_id=namespace_id, pk=import_id).first()
        if batch is None:
            raise CommandError(f"import {import_id} not found in this namespace")
        result = import_undo(batch=batch, actor=command_actor())
        self.stdout.write(
            f"undone import {import_id}: {len(result.removed_event_ids)} events removed, "
            f"{len(result.restored_event_ids)} restored"
        )
