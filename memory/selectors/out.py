"""The typed read layer's base: selectors return these models, the agent API declares them as
response schemas and the Memory UI's templates read their attributes, so both surfaces show the
same (redacted) data from one place.

Selectors build them with `model_construct` from rows they have already read and typed, so the
models cost next to nothing on hot paths; the API still validates what it sends.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Out(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)
