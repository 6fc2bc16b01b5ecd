"""The LoCoMo evaluation harness (SPEC §16): the benchmark's conversations go through the normal
pipeline, and every question of categories 1–4 with evidence is answered by the product's own
retrieval, scored by evidence recall.

- `dataset`: parsing the release (sessions, dates, evidence ids) and pairing utterances into turns;
- `ingest`: one namespace per conversation through `turn_ingest` and the job queue;
- `paths`: the retrieval paths measured (raw, events, graph, the recommended one, the context);
- `scoring`: R@k over utterances and recall within a token budget, per category and overall;
- `answers`: with a model, answering from the product's context and LLM-as-judge (10 runs);
- `run`: the whole evaluation and its JSON report.
"""
