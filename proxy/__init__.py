"""StrataGate as a drop-in model endpoint: an OpenAI- and Anthropic-compatible proxy that
forwards to the real model, injects activated memory on the way in and captures each completed
turn on the way out (docs/PROXY.md). `app` is the ASGI entry, `exchange` the protocol-neutral
core, `protocols` one adapter per wire format, `memory` the calls into StrataGate's services."""
