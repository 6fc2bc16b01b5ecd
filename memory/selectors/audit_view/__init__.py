"""Reads for the Memory UI's usage audit (SPEC §10.5, §13.8): the receipt list with its filters
and summary, the chain page of one receipt, and a memory's usage page — each in a fixed number
of queries, whatever the number of receipts or refs.

The chain itself is `memory.selectors.audit.audit_chain`; this package adds what a person reads
next to it: titles for every ref (cited, retrieved-but-unused and injected), the activated memory
injected into the session before the answer, and how far each cited event was reinforced.
"""

from memory.selectors.audit_view.chain import (
    ActivationOut,
    CitedEventOut,
    CitedOut,
    InjectedRefOut,
    ReceiptPageOut,
    SourceGroupOut,
    UnusedOut,
    receipt_by_pk,
    receipt_page_detail,
    reinforcement,
)
from memory.selectors.audit_view.receipts import (
    NO_VERDICT,
    PAGE_SIZE,
    VERDICTS,
    ReceiptFilter,
    ReceiptRowOut,
    ReceiptSummaryOut,
    receipt_page,
    receipt_sessions,
    receipt_summary,
    receipts_filtered,
)
from memory.selectors.audit_view.refs import RefTitleOut, ref_titles
from memory.selectors.audit_view.usage import (
    USAGE_SHOWN,
    CitationRowOut,
    EventUsagePageOut,
    ShownRowOut,
    event_usage_detail,
)

__all__ = [
    "NO_VERDICT",
    "PAGE_SIZE",
    "USAGE_SHOWN",
    "VERDICTS",
    "ActivationOut",
    "CitationRowOut",
    "CitedEventOut",
    "CitedOut",
    "EventUsagePageOut",
    "InjectedRefOut",
    "ReceiptFilter",
    "ReceiptPageOut",
    "ReceiptRowOut",
    "ReceiptSummaryOut",
    "RefTitleOut",
    "ShownRowOut",
    "SourceGroupOut",
    "UnusedOut",
    "event_usage_detail",
    "receipt_by_pk",
    "receipt_page",
    "receipt_page_detail",
    "receipt_sessions",
    "receipt_summary",
    "receipts_filtered",
    "ref_titles",
    "reinforcement",
]
