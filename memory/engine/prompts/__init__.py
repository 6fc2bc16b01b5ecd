"""Prompts as code: one module per prompt family, each with its pydantic output model."""

from memory.engine.prompts.block_views import SYSTEM_PROMPT as BLOCK_VIEWS_SYSTEM_PROMPT
from memory.engine.prompts.block_views import BlockViewsOut
from memory.engine.prompts.block_views import build_user_prompt as block_views_user_prompt

__all__ = ["BLOCK_VIEWS_SYSTEM_PROMPT", "BlockViewsOut", "block_views_user_prompt"]
