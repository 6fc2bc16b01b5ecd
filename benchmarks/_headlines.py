"""Headline figures of each benchmark's result JSON, and the one line `run_all.py` prints and
writes into benchmarks/README.md for them."""

from __future__ import annotations

from typing import Any

type Figures = dict[str, Any]


def scalars(result: dict[str, Any]) -> Figures:
    """Top-level numbers and booleans: the headline of a script this file knows nothing about."""
    return {
        k: v
        for k, v in result.items()
        if isinstance(v, int | float | bool) and k not in ("machine", "benchmark")
    }


def default_line(figures: Figures) -> str:
    return ", ".join(f"{k} {v}" for k, v in list(figures.items())[:8])


# --- headline figures per benchmark ------------------------------------------------------------


def ingest_headline(r: dict[str, Any]) -> Figures:
    figures: Figures = {
        "turns": r["turns"],
        "clients": r["clients"],
        "turns_per_second": r["turns_per_second"],
        **{f"latency_{k}_ms": r["latency_ms"][k] for k in ("p50", "p95", "p99")},
        "errors": r["errors"],
    }
    postgres = r.get("runs", {}).get("postgres")
    if postgres and r.get("database") != "postgresql":
        figures["postgres_namespaces"] = postgres["namespaces"]
        figures["postgres_turns_per_second"] = postgres["turns_per_second"]
        figures["postgres_latency_p95_ms"] = postgres["latency_ms"]["p95"]
        figures["errors"] += postgres["errors"]
    return figures


def ingest_line(f: Figures) -> str:
    line = (
        f"{f['turns']} turns from {f['clients']} clients: {f['turns_per_second']} turns/s; "
        f"latency p50 {f['latency_p50_ms']} ms, p95 {f['latency_p95_ms']} ms, "
        f"p99 {f['latency_p99_ms']} ms"
    )
    if "postgres_turns_per_second" in f:
        line += (
            f"; PostgreSQL, {f['postgres_namespaces']} namespaces: "
            f"{f['postgres_turns_per_second']} turns/s, p95 {f['postgres_latency_p95_ms']} ms"
        )
    return f"{line}; {f['errors']} errors"


def processing_headline(r: dict[str, Any]) -> Figures:
    keys = ("turns", "blocks_sealed", "blocks_ready", "processing_seconds", "ms_per_block")
    return {k: r[k] for k in (*keys, "job_runs", "failed_jobs", "ingest_seconds")}


def processing_line(f: Figures) -> str:
    return (
        f"{f['turns']} turns → {f['blocks_ready']}/{f['blocks_sealed']} blocks ready after "
        f"{f['processing_seconds']} s ({f['ms_per_block']} ms per block, {f['job_runs']} job runs, "
        f"{f['failed_jobs']} failed); ingest {f['ingest_seconds']} s"
    )


SEARCH_OPS = ("search_events", "search_raw", "search_graph", "context")


def batch_headline(r: dict[str, Any]) -> Figures:
    # Its script is young: read what is there rather than fail on a renamed key.
    batch = r.get("batch_latency_ms", {})
    return {
        "turns": r.get("turns"),
        "batch_size": r.get("batch_size"),
        "turns_per_second": r.get("turns_per_second"),
        "batch_p50_ms": batch.get("p50"),
        "batch_p95_ms": batch.get("p95"),
        "replay_turns_per_second": r.get("replay", {}).get("turns_per_second"),
        "one_by_one_turns_per_second": r.get("one_by_one", {}).get("turns_per_second"),
    }


def batch_line(f: Figures) -> str:
    return (
        f"{f['turns']} turns in batches of {f['batch_size']}: {f['turns_per_second']} turns/s "
        f"(batch p50 {f['batch_p50_ms']} ms, p95 {f['batch_p95_ms']} ms); replay "
        f"{f['replay_turns_per_second']} turns/s; one by one {f['one_by_one_turns_per_second']} "
        "turns/s"
    )


def search_headline(r: dict[str, Any]) -> Figures:
    figures: Figures = {"messages": r["parameters"]["messages"]}
    for db, run in r["runs"].items():
        for op in SEARCH_OPS:
            row = run["in_process"][op]
            figures[f"{db} {op} p50/p95 ms"] = [row["p50_ms"], row["p95_ms"]]
        bm25 = run["baseline"]["rank_bm25 get_top_n(n=6)"]
        figures[f"{db} rank_bm25 p50/p95 ms"] = [bm25["p50_ms"], bm25["p95_ms"]]
        figures[f"{db} http_errors"] = run["http_errors"]
    return figures


def search_line(f: Figures) -> str:
    dbs = list(dict.fromkeys(k.split(" ")[0] for k in f if k.endswith("p50/p95 ms")))
    parts = []
    for db in dbs:
        ops = ", ".join(
            f"{op} {f[f'{db} {op} p50/p95 ms'][0]}/{f[f'{db} {op} p50/p95 ms'][1]}"
            for op in (*SEARCH_OPS, "rank_bm25")
        )
        parts.append(f"{db}: {ops}")
    return f"{f['messages']:,} messages, p50/p95 ms in-process; " + "; ".join(parts)


def graph_headline(r: dict[str, Any]) -> Figures:
    figures: Figures = {"nodes": r["namespace"]["nodes"]}
    for limit, row in r["limits"].items():
        figures[f"limit {limit} tti p50/max ms"] = [row["tti_p50_ms"], row["tti_max_ms"]]
        figures[f"limit {limit} response p50 ms"] = row["response_start_p50_ms"]
    figures["browser_problems"] = len(r["browser_problems"])
    return figures


def graph_line(f: Figures) -> str:
    limits = [k.split(" ")[1] for k in f if k.endswith("tti p50/max ms")]
    parts = [
        f"limit {n}: time to interactive p50 {f[f'limit {n} tti p50/max ms'][0]} ms, max "
        f"{f[f'limit {n} tti p50/max ms'][1]} ms (server {f[f'limit {n} response p50 ms']} ms)"
        for n in limits
    ]
    return f"{f['nodes']:,} nodes; " + "; ".join(parts)


def locomo_headline(r: dict[str, Any]) -> Figures:
    return {
        "conversations": r["protocol"]["conversations"],
        "questions": r["questions"],
        "overall": r["overall"],
        "by_category": r["by_category"],
        "paths_R@10": {name: p["overall"].get("R@10") for name, p in r["paths"].items()},
        "ingest_seconds": r["ingest"]["seconds"],
        "goals_met": r.get("goals_met", {}),
    }


def locomo_line(f: Figures) -> str:
    overall, cats = f["overall"], f["by_category"]
    budgets = ", ".join(f"{k} {v:.3f}" for k, v in overall.items() if k.startswith("budget@"))
    per_cat = ", ".join(f"{c} {cats[c].get('R@10', 0):.3f}" for c in sorted(cats))
    return (
        f"{'+'.join(f['conversations'])}, {f['questions']} questions: R@10 "
        f"{overall.get('R@10', 0):.3f} (by category {per_cat}); {budgets}"
    )


def history_headline(r: dict[str, Any]) -> Figures:
    return {
        "per_conversation": {
            name: {
                **{k: c[k] for k in ("history_tokens", "transcript_tokens", "ratio")},
                "view_shares": c.get("view_shares", {}).get("median_share_of_l5", {}),
            }
            for name, c in r["conversations"].items()
        },
        "ratio": r["ratio"],
        "goal_ratio": r["goal_ratio"],
        "goal_met": r["goal_met"],
    }


def history_line(f: Figures) -> str:
    rows = "; ".join(
        f"{name} {c['history_tokens']:,} / {c['transcript_tokens']:,} = {c['ratio']:.3f}"
        for name, c in f["per_conversation"].items()
    )
    verdict = "met" if f["goal_met"] else "missed"
    shares = "; ".join(
        f"{name} " + " ".join(f"{k} {v:.2f}" for k, v in sorted(c["view_shares"].items()))
        for name, c in f["per_conversation"].items()
        if c.get("view_shares")
    )
    views = (
        f"; views as a median share of L5: {shares} (goals L1 ≤ 0.30, L0 ≤ 0.12)" if shares else ""
    )
    return f"history / transcript tokens: {rows} (goal ≤ {f['goal_ratio']:.3f}: {verdict}){views}"


def proxy_history_headline(r: dict[str, Any]) -> Figures:
    keys = ("end_layered_tokens", "end_native_tokens", "saved")
    return {
        "per_conversation": {
            name: {
                **{k: c[k] for k in keys},
                "evidence_layered": c["evidence"]["layered_share"],
                "evidence_native": c["evidence"]["native_share"],
            }
            for name, c in r["conversations"].items()
        },
        "goal_saved": r["goal_saved"],
        "goal_met": r["goal_met"],
    }


def proxy_history_line(f: Figures) -> str:
    rows = "; ".join(
        f"{name} {c['end_layered_tokens']:,} vs {c['end_native_tokens']:,} = {c['saved']:.1%} "
        f"fewer, evidence in request {c['evidence_layered']:.1%} vs {c['evidence_native']:.1%}"
        for name, c in f["per_conversation"].items()
    )
    verdict = "met" if f["goal_met"] else "missed"
    return f"last request layered vs native: {rows} (goal ≥ {f['goal_saved']:.0%}: {verdict})"


def calls_headline(r: dict[str, Any]) -> Figures:
    keys = ("turns", "block_turns", "http_requests", "requests_per_turn", "model_calls_by_kind")
    return {k: r[k] for k in (*keys, "events", "failed_jobs", "goal_per_turn", "goal_met")}


def calls_line(f: Figures) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(f["model_calls_by_kind"].items()))
    verdict = "met" if f["goal_met"] else "missed"
    return (
        f"{f['turns']} turns at block size {f['block_turns']}: {f['http_requests']} model "
        f"requests = {f['requests_per_turn']} per turn ({kinds or 'none'}; goal ≤ "
        f"{f['goal_per_turn']}: {verdict})"
    )


LOAD_OPS = ("ingest", "context", "search_events", "search_raw", "search_graph", "assess")


def load_headline(r: dict[str, Any]) -> Figures:
    figures: Figures = {
        "agents": r["setup"]["agents"],
        "seconds": r["setup"]["seconds"],
        "requests_per_second": r["requests_per_second"],
    }
    for op in (*LOAD_OPS, "record_use"):
        row = r["operations"][op]
        figures[f"{op} p50/p95 ms"] = [row["p50_ms"], row["p95_ms"]]
    return {**figures, "errors": r["errors"], "goal_met": r["goal_met"]}


def load_line(f: Figures) -> str:
    ops = ", ".join(
        f"{op} {f[f'{op} p50/p95 ms'][0]}/{f[f'{op} p50/p95 ms'][1]}"
        for op in (*LOAD_OPS, "record_use")
    )
    verdict = "met" if f["goal_met"] else "missed"
    return (
        f"{f['agents']} agents for {f['seconds']:.0f} s, {f['requests_per_second']} requests/s; "
        f"p50/p95 ms {ops}; {f['errors']} errors (goal p95 < 200 ms: {verdict})"
    )


def fuzz_headline(r: dict[str, Any]) -> Figures:
    return {
        "database": r["database"],
        "requests": r["requests"],
        "failures": r["failures"],
        "server_errors": sum(t["statuses"].get("500", 0) for t in r["tests"].values()),
        "foreign_non_404": sum(
            n
            for code, n in r["tests"].get("foreign", {}).get("statuses", {}).items()
            if code != "404"
        ),
    }


def fuzz_line(f: Figures) -> str:
    return (
        f"{f['requests']:,} generated requests on {f['database']}: {f['failures']} failing "
        f"operation(s), {f['server_errors']} answered 5xx, {f['foreign_non_404']} foreign-token "
        "answers other than 404"
    )


def proxy_headline(r: dict[str, Any]) -> Figures:
    return {
        "messages": r["corpus_messages"],
        "added_off_ms": r["added_off"],
        "added_memory_ms": r["added_memory"],
        "first_chunk_ms": r["first_chunk"],
        "goals_ms": r["goals_ms"],
        "met": r["met"],
    }


def proxy_line(f: Figures) -> str:
    def p(key: str) -> str:
        return "/".join(f"{f[key][q]:.1f}" for q in ("p50_ms", "p95_ms", "p99_ms"))

    met = ", ".join(f"{k} {'met' if ok else 'missed'}" for k, ok in f["met"].items())
    return (
        f"{f['messages']:,} messages, added ms p50/p95/p99: memory off {p('added_off_ms')}, "
        f"with memory {p('added_memory_ms')}; first chunk {p('first_chunk_ms')} "
        f"(goals p95 ≤ {f['goals_ms']['off']:g} / {f['goals_ms']['memory']:g} / "
        f"{f['goals_ms']['first_chunk']:g}: {met})"
    )
