"""One home per word list (graphui/vocabulary.py): it names every value the models and the engine
define, templates and views show its words instead of keeping lists of their own, and wording
that quotes an engine number ("high ≥ 0.7", "at most 8 refs") follows the engine's constant."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import MappingProxyType, SimpleNamespace

import pytest
from django.template import Context, Template
from django.utils import translation
from django.utils.translation.template import templatize

from graphui import vocabulary
from graphui.templatetags import vocabulary as tags
from graphui.views.health import _band_chart
from memory.engine import gate, weights
from memory.models import JobKind, JobStatus
from memory.selectors.health_charts import WEIGHT_BANDS
from memory.selectors.processing_view import JOB_KINDS, JOB_STATUSES

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
UI_CODE = sorted(p for p in (ROOT / "graphui").rglob("*.py") if p != ROOT / "graphui/vocabulary.py")

# The lists whose words only the vocabulary may spell, and whose values no template may choose
# between with its own if/elif chain.
LISTS = {
    "job kinds": vocabulary.MODEL_CALL_KINDS,
    "job states": vocabulary.JOB_STATUSES,
    "verdicts": {**vocabulary.VERDICTS, "": vocabulary.NO_ASSESSMENT},
    "strategies": vocabulary.STRATEGIES,
    "ref rejections": vocabulary.REF_REJECTIONS,
    "gate notes": vocabulary.GATE_NOTES,
    "weight bands": vocabulary.WEIGHT_BANDS,
}
# The same English word for something else, so it may stay where it is.
SHARED_LABELS = {
    "failed": "blocks, imports and model calls fail too",
    "running": "the namespaces table's column of queued and running jobs",
}
SHARED_VALUES = {
    "queued": "the job-count cells style open jobs",
    "running": "the job-count cells style open jobs; a running job says since when",
    "failed": "the job-count cells link failed jobs; blocks and imports fail too",
    "duplicate": "a proxied turn stored before",
    "expand_block": "the admin action of expanding a block",
}


def _labels() -> dict[str, str]:
    """English label → the list it belongs to."""
    found: dict[str, str] = {}
    with translation.override("en"):
        for name, words in LISTS.items():
            for word in words.values():
                for text in (word.label, word.note):
                    if text:
                        found[str(text)] = name
    return found


# A gettext call in templatize()'s rendering of a template, and its first string.
_CALL = re.compile(r"\b(?:gettext|ngettext)\(\s*(u?'(?:[^'\\]|\\.)*'|u?\"(?:[^\"\\]|\\.)*\")")


def _template_words(path: Path) -> set[str]:
    """What a template marks for translation ({% translate %} and {% blocktranslate %})."""
    text = templatize(path.read_text(), origin=str(path))
    return {ast.literal_eval(m) for m in _CALL.findall(text)}


def _code_words(path: Path) -> set[str]:
    words = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in ("_", "gettext", "gettext_lazy", "ngettext", "ngettext_lazy"):
                words.add(str(node.args[0].value))
    return words


def _gate_note_codes() -> set[str]:
    source = ast.parse(Path(gate.__file__).read_text())
    return {
        node.args[0].value
        for node in ast.walk(source)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "Note"
        and isinstance(node.args[0], ast.Constant)
    }


# --- each list names every value of its vocabulary ---------------------------------------------


def test_the_vocabulary_names_every_value_the_models_and_the_engine_define() -> None:
    assert set(vocabulary.JOB_KINDS) == set(JobKind.values) == set(JOB_KINDS)
    assert set(vocabulary.MODEL_CALL_KINDS) >= set(JobKind.values)
    assert set(vocabulary.JOB_STATUSES) == set(JobStatus.values) == set(JOB_STATUSES)
    assert tuple(vocabulary.VERDICTS) == gate.VERDICTS  # the filter lists them in this order
    assert set(vocabulary.STRATEGIES) == set(gate.STRATEGIES)
    rejections = {gate.INVALID_REF, gate.DUPLICATE, gate.NOT_IN_BATCH, gate.LIMIT_EXCEEDED}
    assert set(vocabulary.REF_REJECTIONS) == rejections
    assert set(vocabulary.GATE_NOTES) == _gate_note_codes() != set()
    assert set(vocabulary.WEIGHT_BANDS) == set(WEIGHT_BANDS)
    assert {weights.weight_band(w) for w in (1.0, 0.5, 0.01, 0.0)} == set(WEIGHT_BANDS)
    assert set(vocabulary.CRITICALITIES) == set(weights.CRITICALITY_FLOORS)


def test_every_word_has_a_chinese_label() -> None:
    for name, words in LISTS.items():
        for value, word in words.items():
            with translation.override("en"):
                english = str(word.label)
            with translation.override("zh-hans"):
                chinese = str(word.label)
            assert chinese != english, (name, value)


# --- and nothing else keeps its own --------------------------------------------------------------


def test_no_template_spells_the_vocabularys_words() -> None:
    labels = _labels()
    repeats = sorted(
        f"{path.relative_to(ROOT)}: {word!r} ({labels[word]})"
        for path in TEMPLATES
        for word in _template_words(path)
        if word in labels and word not in SHARED_LABELS
    )
    assert repeats == []


def test_no_template_chooses_between_the_vocabularys_values() -> None:
    values = {v for words in LISTS.values() for v in words if v} - set(SHARED_VALUES)
    chains = sorted(
        f"{path.relative_to(ROOT)}: == {m[1]!r}"
        for path in TEMPLATES
        for m in re.findall(r"==\s*([\"'])(\w+)\1", path.read_text())
        if m[1] in values
    )
    assert chains == []


def test_no_view_or_tag_library_keeps_its_own_word_list() -> None:
    labels = _labels()
    repeats = sorted(
        f"{path.relative_to(ROOT)}: {word!r} ({labels[word]})"
        for path in UI_CODE
        for word in _code_words(path)
        if word in labels and word not in SHARED_LABELS
    )
    assert repeats == []


def test_the_retired_partials_stay_retired() -> None:
    partials = ROOT / "templates" / "graphui" / "partials"
    for name in ("_processing_kind.html", "_processing_status.html", "_audit_words.html"):
        assert not (partials / name).exists()


def test_badges_keep_their_markup() -> None:
    assert tags.job_status_badge("queued") == (
        '<span class="badge"><span aria-hidden="true">◷</span> queued</span>'
    )
    assert tags.job_status_badge("failed") == (
        '<span class="badge bad"><span aria-hidden="true">⚠</span> failed</span>'
    )
    assert tags.job_status_badge("paused") == '<span class="badge">paused</span>'
    assert tags.verdict_badge("sufficient") == (
        '<span class="badge ok verdict"><span aria-hidden="true">✓</span> sufficient</span>'
    )
    assert tags.verdict_badge("") == (
        '<span class="badge verdict"><span aria-hidden="true">○</span> no assessment</span>'
    )
    assert tags.verdict_badge("maybe") == '<span class="badge verdict">maybe</span>'
    assert tags.job_kind("block_views", describe=True) == (
        'Block views (L0–L2)<span class="kind-note">title, summary and key facts of a sealed '
        "block</span>"
    )
    assert tags.job_kind("extract_events") == "Event extraction"
    assert tags.job_kind("<b>new</b>") == "<code>&lt;b&gt;new&lt;/b&gt;</code>"


# --- engine numbers come from the engine ---------------------------------------------------------


def _render(source: str) -> str:
    return Template("{% load vocabulary events %}" + source).render(Context())


def test_the_wording_quotes_the_engines_numbers() -> None:
    high, mid = vocabulary.number(weights.BAND_HIGH_FROM), vocabulary.number(weights.BAND_MID_FROM)
    assert vocabulary.weight_band_range("high") == f"high ≥ {high}"
    assert vocabulary.weight_band_range("mid") == f"mid {mid}–{high}"
    assert vocabulary.weight_band_range("low") == f"low < {mid}"
    assert tags.ref_rejection("limit_exceeded") == (
        f"over the limit: at most {gate.MAX_REFS} refs count"
    )
    note = SimpleNamespace(code="fit_truncated", message="")
    assert tags.gate_note(note) == f"Fit was cut to {gate.TEXT_LIMIT} characters."
    assert _render("{% superseded_cap %}") == str(weights.SUPERSEDED_CAP)
    floor = weights.CRITICALITY_FLOORS["identity"]
    assert _render('{{ "identity"|vocab:"criticality" }}') == f"identity (floor {floor})"


def test_changing_an_engine_constant_changes_the_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weights, "BAND_HIGH_FROM", 0.8)
    monkeypatch.setattr(weights, "BAND_MID_FROM", 0.25)
    monkeypatch.setattr(weights, "SUPERSEDED_CAP", 0.05)
    floors = {**weights.CRITICALITY_FLOORS, "preference": 0.4}
    monkeypatch.setattr(weights, "CRITICALITY_FLOORS", MappingProxyType(floors))
    monkeypatch.setattr(gate, "MAX_REFS", 5)
    monkeypatch.setattr(gate, "TEXT_LIMIT", 99)

    charts = SimpleNamespace(
        visible_events=3,
        bands=[SimpleNamespace(band=b, events=1) for b in ("high", "mid", "low", "zero")],
    )
    chart = _band_chart(charts)  # type: ignore[arg-type]
    for text in ("high ≥ 0.8", "mid 0.25–0.8", "low &lt; 0.25"):
        assert text in chart
    assert "0.7" not in chart
    assert tags.ref_rejection("limit_exceeded") == "over the limit: at most 5 refs count"
    note = SimpleNamespace(code="missing_truncated", message="")
    assert tags.gate_note(note) == "Missing was cut to 99 characters."
    assert _render("{% superseded_cap %}") == "0.05"
    assert _render('{{ "preference"|vocab:"criticality" }}') == "preference (floor 0.4)"
    with translation.override("zh-hans"):
        assert vocabulary.weight_band_range("high") == "高 ≥ 0.8"
        assert tags.ref_rejection("limit_exceeded") == "超出上限：最多计入 5 条引用"
        assert _render("{% superseded_cap as cap %}{{ cap }}") == "0.05"


def test_no_ui_string_spells_an_engine_number() -> None:
    numbers = {
        vocabulary.number(n)
        for n in (
            weights.BAND_HIGH_FROM,
            weights.BAND_MID_FROM,
            weights.SUPERSEDED_CAP,
            *(f for f in weights.CRITICALITY_FLOORS.values() if f),
        )
    }
    spelled = re.compile(
        "|".join(
            [
                *(rf"(?<![\d.]){re.escape(n)}(?![\d])" for n in numbers),
                rf"\b{gate.MAX_REFS} refs?\b",
                rf"\b{gate.TEXT_LIMIT} characters\b",
            ]
        )
    )
    found = sorted(
        f"{path.relative_to(ROOT)}: {word!r}"
        for path in [*TEMPLATES, *UI_CODE, ROOT / "graphui/vocabulary.py"]
        for word in (_template_words(path) if path.suffix == ".html" else _code_words(path))
        if spelled.search(word)
    )
    assert found == []
