"""The memory side of the model proxy (the `proxy` package): recognising sessions, recording
what was injected, capturing turns and counting traffic. The proxy calls these and nothing
else; each goes through the same services as the API (activation, ingest)."""
