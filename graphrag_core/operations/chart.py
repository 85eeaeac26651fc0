"""A small line chart as SVG (no plotting library): the rejection rate over runs against its
baseline, for the ingestion report."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 28, 48


def line_chart_svg(
    title: str,
    labels: Sequence[str],
    series: dict[str, Sequence[float | None]],
    *,
    y_max: float | None = None,
    percent: bool = True,
) -> str:
    """Each series a polyline over `labels` (None leaves a gap), y from 0 to `y_max`."""
    colors = ("#2563eb", "#dc2626", "#16a34a", "#9333ea")
    values = [v for s in series.values() for v in s if v is not None]
    top = y_max if y_max is not None else max([*values, 0.01]) * 1.15
    n = max(len(labels), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - min(v, top) / top)

    def fmt(v: float) -> str:
        if not percent:
            return f"{v:g}"
        return f"{v:.0%}" if top >= 0.2 else f"{v:.1%}"

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    for k in range(5):
        tick = top * k / 4
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            'stroke="#e5e7eb"/>'
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" '
            f'fill="#6b7280">{fmt(tick)}</text>'
        )
    step = max(1, n // 8)
    for i, label in enumerate(labels):
        if i % step == 0 or i == n - 1:
            parts.append(
                f'<text x="{x(i):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" '
                f'fill="#6b7280">{escape(label)}</text>'
            )
    for points, color in zip(series.values(), colors, strict=False):
        segment: list[str] = []
        segments: list[list[str]] = []
        for i, v in enumerate(points):
            if v is None:
                if segment:
                    segments.append(segment)
                segment = []
            else:
                segment.append(f"{x(i):.1f},{y(v):.1f}")
        if segment:
            segments.append(segment)
        for seg in segments:
            parts.append(
                f'<polyline points="{" ".join(seg)}" fill="none" stroke="{color}" '
                'stroke-width="2"/>'
            )
            for point in seg:
                cx, cy = point.split(",")
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="{color}"/>')
    for k, (name, color) in enumerate(zip(series, colors, strict=False)):
        lx = LEFT + 130 * k
        ly = HEIGHT - 14
        parts.append(
            f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{color}"/>'
            f'<text x="{lx + 14}" y="{ly}">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
