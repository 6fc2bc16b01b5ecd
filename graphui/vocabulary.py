"""The Memory UI's closed word lists, each in one place, and the wording that quotes an engine
number, formatted from the engine's constant.

A word list gives every value of a vocabulary the models or the engine define (job kinds and
states, the evidence gate's verdicts, why it rejects a ref, weight bands…) its label, and where a
badge shows it, a symbol (meaning never by colour alone) and a tone (the badge's colour class).
Views use these lists directly; templates through the `vocabulary` tag library
(graphui/templatetags/vocabulary.py), never with their own if/elif chains. Text that names an
engine number ("weight ≥ 0.7", "at most 8 refs") is built when it is shown, from the constant, so
changing the engine changes the UI with it. tests/graphui/test_vocabulary.py keeps it that way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from django.utils.formats import number_format
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from memory.engine import gate, tools_mode, weights
from memory.models import JobKind, JobStatus

type Text = str | Promise


@dataclass(frozen=True)
class Word:
    label: Text
    symbol: str = ""  # shown before the label, hidden from screen readers
    tone: str = ""  # the badge's colour class: "ok", "info", "warn", "bad" or none
    note: Text | None = None  # what it is, where the UI describes it


def _later(build: Callable[[], str]) -> Text:
    """Text built each time it is shown: in the reader's language, from the constant as it is."""
    return lazy(build, str)()


def number(value: float) -> str:
    """An engine number as the UI writes it: 0.7, 1.0, 8."""
    return number_format(value)


def label(words: Mapping[str, Word], value: str) -> str:
    """The word for `value`, or the value itself when the list does not know it."""
    word = words.get(value)
    return str(word.label) if word else value


# --- Processing jobs (memory.models.JobKind, JobStatus) ------------------------------------------

JOB_KINDS: Final[Mapping[str, Word]] = {
    JobKind.BLOCK_VIEWS.value: Word(
        gettext_lazy("Block views (L0–L2)"),
        note=gettext_lazy("title, summary and key facts of a sealed block"),
    ),
    JobKind.BLOCK_EXTRACT.value: Word(
        gettext_lazy("Event extraction"),
        note=gettext_lazy("events with their two time axes, from a block's messages"),
    ),
    JobKind.GRAPH_PROJECT.value: Word(
        gettext_lazy("Graph projection"),
        note=gettext_lazy("graph nodes, facts and edges from new events"),
    ),
    JobKind.IMPORT_PREVIEW.value: Word(
        gettext_lazy("Import preview"),
        note=gettext_lazy("a proposed action for each imported memory"),
    ),
}
# Model calls are named by what asked for them: a job's kind, or one of these.
MODEL_CALL_KINDS: Final[Mapping[str, Word]] = {
    **JOB_KINDS,
    "extract_events": JOB_KINDS[JobKind.BLOCK_EXTRACT.value],
    "import_decide": Word(gettext_lazy("Import decision")),
    "connection_test": Word(gettext_lazy("Connection test")),
}
JOB_STATUSES: Final[Mapping[str, Word]] = {
    JobStatus.QUEUED.value: Word(gettext_lazy("queued"), "◷"),
    JobStatus.RUNNING.value: Word(gettext_lazy("running"), "⟳", "info"),
    JobStatus.SUCCEEDED.value: Word(gettext_lazy("succeeded"), "✓", "ok"),
    JobStatus.FAILED.value: Word(gettext_lazy("failed"), "⚠", "bad"),
}


def job_kind_label(kind: str) -> str:
    return label(MODEL_CALL_KINDS, kind)


def job_status_label(status: str) -> str:
    return label(JOB_STATUSES, status)


# --- The evidence gate (memory.engine.gate) ------------------------------------------------------

VERDICTS: Final[Mapping[str, Word]] = {
    "sufficient": Word(gettext_lazy("sufficient"), "✓", "ok"),
    "partial": Word(gettext_lazy("partial"), "◐", "warn"),
    "mismatch": Word(gettext_lazy("mismatch"), "✗", "bad"),
}
NO_ASSESSMENT: Final = Word(gettext_lazy("no assessment"), "○")
# What an agent does next (gate.STRATEGIES); a batch's tool is one of the searches or expansions.
STRATEGIES: Final[Mapping[str, Word]] = {
    "answer": Word(gettext_lazy("answer")),
    "search_events": Word(gettext_lazy("search events")),
    "search_graph": Word(gettext_lazy("search the graph")),
    "search_raw": Word(gettext_lazy("search raw messages")),
    "expand_event": Word(gettext_lazy("expand an event")),
    "expand_graph_node": Word(gettext_lazy("expand a graph node")),
    "expand_block": Word(gettext_lazy("expand a block")),
}
# What a ref points at (gate.Ref.kind).
REF_KINDS: Final[Mapping[str, Word]] = {
    "event": Word(gettext_lazy("event")),
    "node": Word(gettext_lazy("graph node")),
    "fact": Word(gettext_lazy("graph fact")),
    "raw": Word(gettext_lazy("raw message")),
    "block": Word(gettext_lazy("block")),
}

# Why the gate did not count a cited ref (gate.validate_refs).
REF_REJECTIONS: Final[Mapping[str, Word]] = {
    gate.INVALID_REF: Word(gettext_lazy("not a valid ref: empty, not a string, or malformed")),
    gate.DUPLICATE: Word(gettext_lazy("a duplicate of a ref cited before it")),
    gate.NOT_IN_BATCH: Word(gettext_lazy("not among what this batch retrieved")),
    gate.LIMIT_EXCEEDED: Word(
        _later(
            lambda: (
                ngettext(
                    "over the limit: at most %(n)s ref counts",
                    "over the limit: at most %(n)s refs count",
                    gate.MAX_REFS,
                )
                % {"n": gate.MAX_REFS}
            )
        )
    ),
}
# What the gate changed in an assessment, by the code of its note (gate.validate_assessment).
GATE_NOTES: Final[Mapping[str, Word]] = {
    "sufficient_without_evidence": Word(
        gettext_lazy(
            "“Sufficient” needs at least one accepted ref, so it was downgraded to partial."
        )
    ),
    "sufficient_without_answer": Word(
        gettext_lazy(
            "“Sufficient” needs the next strategy “answer”, so it was downgraded to partial."
        )
    ),
    "answer_without_sufficient": Word(
        gettext_lazy(
            "Only a sufficient verdict may answer, so the next strategy became “search events”."
        )
    ),
    "fit_truncated": Word(
        _later(lambda: _("Fit was cut to %(n)s characters.") % {"n": gate.TEXT_LIMIT})
    ),
    "missing_truncated": Word(
        _later(lambda: _("Missing was cut to %(n)s characters.") % {"n": gate.TEXT_LIMIT})
    ),
}


def verdict_word(verdict: str | None) -> Word:
    """The word for a verdict; no verdict at all is "no assessment"."""
    if not verdict:
        return NO_ASSESSMENT
    return VERDICTS.get(verdict) or Word(verdict)


# --- Weights (memory.engine.weights) -------------------------------------------------------------


def _bounds() -> dict[str, str]:
    return {"high": number(weights.BAND_HIGH_FROM), "mid": number(weights.BAND_MID_FROM)}


# weight_band's answers; `note` names each band's range for the chart.
WEIGHT_BANDS: Final[Mapping[str, Word]] = {
    "high": Word(gettext_lazy("high"), note=_later(lambda: _("high ≥ %(high)s") % _bounds())),
    "mid": Word(gettext_lazy("mid"), note=_later(lambda: _("mid %(mid)s–%(high)s") % _bounds())),
    "low": Word(gettext_lazy("low"), note=_later(lambda: _("low < %(mid)s") % _bounds())),
    "zero": Word(gettext_lazy("zero"), note=gettext_lazy("zero")),
}


def weight_band_label(band: str) -> str:
    return label(WEIGHT_BANDS, band)


def weight_band_range(band: str) -> str:
    """The band with its bounds ("high ≥ 0.7"), from the engine's thresholds."""
    word = WEIGHT_BANDS.get(band)
    return str(word.note) if word and word.note else band


def _floor(criticality: str) -> dict[str, str]:
    return {"floor": number(weights.CRITICALITY_FLOORS[criticality])}


CRITICALITIES: Final[Mapping[str, Word]] = {
    "routine": Word(gettext_lazy("routine")),
    "preference": Word(_later(lambda: _("preference (floor %(floor)s)") % _floor("preference"))),
    "identity": Word(_later(lambda: _("identity (floor %(floor)s)") % _floor("identity"))),
    "safety": Word(_later(lambda: _("safety (floor %(floor)s)") % _floor("safety"))),
}


def superseded_cap() -> str:
    """The weight a superseded event is capped at, as the UI writes it."""
    return number(weights.SUPERSEDED_CAP)


# --- The model proxy's memory rounds (memory.engine.tools_mode) -------------------------------


def memory_rounds_limit() -> str:
    """What the proxy runs for one answer at most ("at most 6 rounds"), from the engine's
    limit."""
    rounds = tools_mode.TOOLS_MAX_ROUNDS
    return ngettext("at most %(n)s round", "at most %(n)s rounds", rounds) % {"n": rounds}
