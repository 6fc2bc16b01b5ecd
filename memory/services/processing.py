"""Block processing: L0–L2 by the model or the offline processor, then the block becomes ready."""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from memory.engine.layering import render_l0, render_l1, render_l2
from memory.engine.offline import offline_block_views
from memory.engine.prompts.block_views import BlockViewsOut
from memory.engine.prompts.extraction_prompt import COMBINED_SYSTEM_PROMPT, BlockMemoryOut
from memory.engine.tokens import estimate_tokens
from memory.models import (
    Block,
    BlockView,
    JobKind,
    ProcessingJob,
    ViewSource,
)
from memory.services.block_ready import block_mark_ready
from memory.services.extraction import block_messages, extraction_user_prompt
from memory.services.jobs import job_create, job_handler
from memory.services.llm_runtime import llm_call, llm_client


def _view_text(block: Block, level: int) -> str:
    return BlockView.objects.get(block=block, level=level).content


# L0–L2 of a block in one statement: a rerun (a retried job) rewrites the same three rows and
# keeps their created_at. Three `update_or_create` calls compiled six ORM statements a block.
_UPSERT_VIEWS_SQL = (
    "INSERT INTO memory_blockview (block_id, level, content, tokens, produced_by, created_at) "
    "VALUES (%s, %s, %s, %s, %s, %s), (%s, %s, %s, %s, %s, %s), (%s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (block_id, level) DO UPDATE SET content = excluded.content, "
    "tokens = excluded.tokens, produced_by = excluded.produced_by"
)


@job_handler(JobKind.BLOCK_VIEWS)
def block_views_produce(job: ProcessingJob) -> None:
    """Write L0–L2 for the job's block (idempotent: rewrites the same three rows), then queue
    extraction. With a model, one call returns the views and the events together."""
    block = job.block
    assert block is not None
    client = llm_client(block.namespace_id)
    out: BlockViewsOut
    prefetched: dict[str, object] | None = None
    if client is not None:
        combined = llm_call(
            client,
            namespace_id=block.namespace_id,
            job=job,
            kind="block_views",
            system=COMBINED_SYSTEM_PROMPT,
            user=extraction_user_prompt(block, block_messages(block)),
            output_model=BlockMemoryOut,
        )
        out = combined
        prefetched = {
            "should_extract": combined.should_extract,
            "events": [e.model_dump(mode="json") for e in combined.events],
            "graph": combined.graph.model_dump(mode="json", by_alias=True)
            if combined.graph is not None
            else None,
        }
        source = ViewSource.MODEL
    else:
        out = offline_block_views(_view_text(block, 4))
        source = ViewSource.OFFLINE
    texts = {
        0: render_l0(out.title, out.tags),
        1: render_l1(out.summary),
        2: render_l2(out.key_points, out.summary),
    }
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                _UPSERT_VIEWS_SQL,
                [
                    value
                    for level, text in texts.items()
                    for value in (block.pk, level, text, estimate_tokens(text), source, now)
                ],
            )
        Block.objects.filter(pk=block.pk).update(should_extract=out.should_extract)
        already = ProcessingJob.objects.filter(block=block, kind=JobKind.BLOCK_EXTRACT).exists()
        # The model may declare extraction unnecessary; the offline rules are cheap, so they
        # always look (their summary heuristics can miss what the event rules catch).
        if already:
            pass
        elif prefetched is not None and not out.should_extract:
            block_mark_ready(block_id=block.pk)
        else:
            payload: dict[str, object] = {"prefetched": prefetched} if prefetched else {}
            job_create(
                namespace_id=block.namespace_id,
                kind=JobKind.BLOCK_EXTRACT,
                block=block,
                payload=payload,
            )
