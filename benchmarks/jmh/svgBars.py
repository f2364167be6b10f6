"""A grouped horizontal bar chart as a standalone SVG, with no plotting library: one group per
workload, one bar per configuration (value and a min-max whisker), a reference line at 1."""
from html import escape

PALETTE = ["#7f7f7f", "#bcbd22", "#ff7f0e", "#8c564b", "#1f77b4", "#17becf", "#2ca02c", "#9467bd",
           "#d62728"]


def grouped_bars_svg(groups, series_order, title, xlabel):
    """groups: [(label, [(series, value, low, high), ...]), ...]; series_order fixes colours."""
    bar_h, gap, label_w, plot_w, top = 14, 18, 330, 520, 50
    xmax = max([hi for _, bars in groups for _, _, _, hi in bars] + [1.0]) * 1.05
    rows = sum(len(bars) for _, bars in groups)
    height = top + rows * bar_h + len(groups) * (gap + 18) + 60
    width = label_w + plot_w + 40
    x = lambda v: label_w + v / xmax * plot_w  # noqa: E731
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="13">'
           f'{escape(title)}</text>']
    y = top
    for label, bars in groups:
        svg.append(f'<text x="4" y="{y + 12}" font-weight="bold">{escape(label)}</text>')
        y += 18
        for series, value, low, high in bars:
            colour = PALETTE[series_order.index(series) % len(PALETTE)]
            svg.append(f'<text x="{label_w - 6}" y="{y + bar_h - 3}" text-anchor="end">'
                       f'{escape(series)}</text>')
            svg.append(f'<rect x="{label_w}" y="{y + 1}" width="{x(value) - label_w:.1f}" '
                       f'height="{bar_h - 2}" fill="{colour}"/>')
            svg.append(f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{y + bar_h / 2}" '
                       f'y2="{y + bar_h / 2}" stroke="black"/>')
            svg.append(f'<text x="{x(max(value, high)) + 4:.1f}" y="{y + bar_h - 3}">'
                       f'{value:.2f}</text>')
            y += bar_h
        y += gap
    # Axis with about 10 ticks, and the "same as no agent" line at 1.
    svg.append(f'<line x1="{label_w}" x2="{label_w + plot_w}" y1="{y}" y2="{y}" stroke="black"/>')
    step = next(s for s in (0.1, 0.25, 0.5, 1, 2, 5, 10) if xmax / s <= 12)
    tick = 0.0
    while tick <= xmax:
        svg.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{y}" y2="{y + 4}" '
                   f'stroke="black"/><text x="{x(tick):.1f}" y="{y + 16}" '
                   f'text-anchor="middle">{tick:g}</text>')
        tick += step
    svg.append(f'<line x1="{x(1):.1f}" x2="{x(1):.1f}" y1="{top}" y2="{y}" stroke="#444" '
               f'stroke-dasharray="4 3"/>')
    svg.append(f'<text x="{label_w + plot_w / 2}" y="{y + 34}" text-anchor="middle">'
               f'{escape(xlabel)}</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"
