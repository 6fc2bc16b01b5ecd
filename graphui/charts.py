"""Small server-rendered SVG charts (no chart library, no script): bar charts, a line chart and
sparklines. Every label is escaped; every chart carries a text alternative (its title plus the
numbers as labels), so the meaning never depends on colour or on seeing the picture."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    note: str = ""  # e.g. a share, shown after the value


def bar_chart(
    bars: Sequence[Bar], *, title: str, width: int = 380, bar_height: int = 22
) -> SafeString:
    """Horizontal bars, one per row, label left, value right."""
    label_w, value_w, gap = 118, 64, 6
    plot_w = max(40, width - label_w - value_w)
    top = max((b.value for b in bars), default=0) or 1
    height = max(1, len(bars)) * (bar_height + gap) + gap
    rows = []
    for i, bar in enumerate(bars):
        y = gap + i * (bar_height + gap)
        w = plot_w * bar.value / top
        text_y = y + bar_height * 0.68
        value = f"{bar.value:,}" + (f" {bar.note}" if bar.note else "")
        rows.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="end">{}</text>'
                '<rect class="bar" x="{}" y="{}" width="{}" height="{}" rx="3"></rect>'
                '<text x="{}" y="{}">{}</text>',
                label_w - 8,
                _n(text_y),
                bar.label,
                label_w,
                y,
                _n(max(w, 1 if bar.value else 0)),
                bar_height,
                _n(label_w + w + 6),
                _n(text_y),
                value,
            )
        )
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" width="{}" height="{}" role="img" '
        'aria-label="{}"><title>{}</title>{}</svg>',
        width,
        height,
        width,
        height,
        title,
        title,
        mark_safe("".join(rows)),
    )


def line_chart(
    points: Sequence[tuple[float, float]],
    *,
    title: str,
    marks: Sequence[tuple[float, float]] = (),
    width: int = 420,
    height: int = 160,
    x_label: str = "",
    y_max: float | None = None,
) -> SafeString:
    """A polyline over (x, y) points with optional highlighted marks; axes labelled at the
    extremes. Empty input draws an empty frame with the title."""
    pad_l, pad_r, pad_t, pad_b = 36, 10, 10, 28
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b
    xs = [p[0] for p in [*points, *marks]] or [0.0, 1.0]
    x0, x1 = min(xs), max(xs)
    span = (x1 - x0) or 1.0
    y_top = y_max if y_max is not None else max([p[1] for p in [*points, *marks]] or [1.0]) or 1.0

    def px(x: float) -> float:
        return pad_l + plot_w * (x - x0) / span

    def py(y: float) -> float:
        return pad_t + plot_h * (1 - y / y_top)

    line = " ".join(f"{_n(px(x))},{_n(py(y))}" for x, y in points)
    dots = "".join(
        format_html('<circle class="adopt" cx="{}" cy="{}" r="3.5"></circle>', _n(px(x)), _n(py(y)))
        for x, y in marks
    )
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="{t}"><title>{t}</title>'
        '<line class="axis" x1="{l}" y1="{b}" x2="{r}" y2="{b}"></line>'
        '<line class="axis" x1="{l}" y1="{tp}" x2="{l}" y2="{b}"></line>'
        '<text x="{lt}" y="{ty}" text-anchor="end">{ytop}</text>'
        '<text x="{lt}" y="{b}" text-anchor="end">0</text>'
        '<text x="{l}" y="{xl}">{x0}</text><text x="{r}" y="{xl}" text-anchor="end">{x1}</text>'
        '<text x="{mid}" y="{xl}" text-anchor="middle">{xlabel}</text>'
        '<polyline class="line" points="{line}"></polyline>{dots}</svg>',
        w=width,
        h=height,
        t=title,
        l=pad_l,
        r=pad_l + plot_w,
        b=pad_t + plot_h,
        tp=pad_t,
        lt=pad_l - 4,
        ty=pad_t + 8,
        ytop=_n(y_top),
        xl=height - 8,
        x0=_n(x0),
        x1=_n(x1),
        mid=_n(pad_l + plot_w / 2),
        xlabel=x_label,
        line=line,
        dots=mark_safe(dots),
    )


def sparkline(
    points: Sequence[tuple[float, float]],
    *,
    title: str,
    marks: Sequence[tuple[float, float]] = (),
    width: int = 120,
    height: int = 28,
) -> SafeString:
    """A tiny weight-over-turns line in [0, 1] with adoption points and the current value."""
    if not points:
        return format_html('<span class="faint">{}</span>', "—")
    xs = [p[0] for p in [*points, *marks]]
    x0, x1 = min(xs), max(xs)
    span = (x1 - x0) or 1.0

    def px(x: float) -> float:
        return 2 + (width - 4) * (x - x0) / span

    def py(y: float) -> float:
        return 2 + (height - 4) * (1 - max(0.0, min(1.0, y)))

    line = " ".join(f"{_n(px(x))},{_n(py(y))}" for x, y in points)
    dots = "".join(
        format_html('<circle class="adopt" cx="{}" cy="{}" r="2.5"></circle>', _n(px(x)), _n(py(y)))
        for x, y in marks
    )
    last_x, last_y = points[-1]
    return format_html(
        '<svg class="sparkline" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="{t}"><title>{t}</title><polyline class="line" points="{line}"></polyline>'
        '{dots}<circle class="now" cx="{cx}" cy="{cy}" r="2"></circle></svg>',
        w=width,
        h=height,
        t=title,
        line=line,
        dots=mark_safe(dots),
        cx=_n(px(last_x)),
        cy=_n(py(last_y)),
    )
