"""A picture of an instrument board: spaces, inspector lines and sections (matplotlib, Agg).

The printed boards are not public, so the picture does not pretend to their shape: spaces are placed
by a small seeded spring layout (numpy only) in which inspector lines pull hard and shared sections
pull gently, so each section tends to form its own cluster. The same instrument always gives the
same picture.

    circle   one space: id on top, number below, filled with the colour of the cats it costs
    line     an inspector line
    hull     a section, outlined in its own colour and labelled with its id
"""

import zlib

import numpy as np

from simulator.shuffle_swing import layout as L

# Fill and text colour per cat colour: readable on white and in print.
SPACE_FILL = {L.BLACK: "#3b3b3b", L.ORANGE: "#f39c33", L.GRAY: "#cfcfcf"}
SPACE_TEXT = {L.BLACK: "white", L.ORANGE: "black", L.GRAY: "black"}
SECTION_COLOURS = (
    "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22", "#7f7f7f", "#ff7f0e", "#393b79", "#637939",
)
RADIUS = 0.3  # space radius, in units of the typical line length


def spring_layout(n, edges, groups=(), seed=0, iterations=400, group_weight=0.15):
    """Positions (n x 2) from a Fruchterman-Reingold style spring layout.

    ``edges`` are (a, b) pairs pulled at weight 1; every pair of spaces sharing a group (a section)
    is pulled at ``group_weight``. Deterministic for a given ``seed``.
    """
    if n == 0:
        return np.zeros((0, 2))
    if n == 1:
        return np.zeros((1, 2))
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1.0, 1.0, size=(n, 2))
    w = np.zeros((n, n))
    for members in groups:
        members = list(members)
        for i in members:
            for j in members:
                if i != j:
                    w[i, j] = max(w[i, j], group_weight)
    for a, b in edges:
        w[a, b] = w[b, a] = 1.0
    k = 1.0 / np.sqrt(n)
    temp = 0.2
    cooling = (0.002 / temp) ** (1.0 / iterations)
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((delta**2).sum(axis=2))
        np.fill_diagonal(dist, 1.0)
        dist = np.maximum(dist, 1e-3)
        # Repulsion k^2 / d between every pair, attraction w * d^2 / k along weighted pairs.
        force = (k * k / dist**2 - w * dist / k)[:, :, None] * delta
        disp = force.sum(axis=1)
        length = np.sqrt((disp**2).sum(axis=1))[:, None]
        pos += disp / np.maximum(length, 1e-9) * np.minimum(length, temp)
        temp *= cooling
    return pos


def _layout_for(inst):
    n = inst.nspaces
    seed = zlib.crc32(inst.name.encode("utf-8"))
    pos = spring_layout(n, inst.lines, inst.section_spaces, seed=seed)
    if n < 2:
        return pos
    pos -= pos.mean(axis=0)
    # Scale so the typical line is one unit long, then open up any pair closer than the circles allow.
    if inst.lines:
        lengths = [np.linalg.norm(pos[a] - pos[b]) for a, b in inst.lines]
        pos /= max(float(np.median(lengths)), 1e-6)
    d = np.sqrt(((pos[:, None, :] - pos[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    closest = float(d.min())
    if closest < 2.6 * RADIUS:
        pos *= 2.6 * RADIUS / max(closest, 1e-6)
    # Landscape: put the longer spread along x.
    if np.ptp(pos[:, 1]) > np.ptp(pos[:, 0]):
        pos = pos[:, ::-1].copy()
    return pos


def _convex_hull(points):
    """Counter-clockwise convex hull (monotone chain) of an (m x 2) array."""
    pts = sorted(set(map(tuple, np.round(points, 9))))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def _section_outline(pos, members, pad):
    """A hull around the member spaces, padded by ``pad`` all round (circle samples per space)."""
    angles = np.linspace(0.0, 2.0 * np.pi, 24, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1) * pad
    pts = np.concatenate([pos[i] + ring for i in members])
    return _convex_hull(pts)


PICTURE_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", ".jpg": "jpeg", ".jpeg": "jpeg"}


def picture_format(path):
    """The picture format a file name asks for (``.png``, ``.svg``, ``.pdf``, ``.jpg``), or
    ``None`` for any other suffix."""
    from pathlib import Path

    return PICTURE_FORMATS.get(Path(path).suffix.lower())


def draw_instrument(inst, path, dpi=120, format=None):
    """Write a picture of ``inst`` (an :class:`simulator.shuffle_swing.instruments.Instrument`) to ``path``, in the
    format its suffix names (PNG, SVG, PDF or JPEG; ``format`` overrides it, default PNG)."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, Patch, Polygon

    pos = _layout_for(inst)
    n = inst.nspaces
    lo = pos.min(axis=0) - 1.2 if n else np.array([-1.0, -1.0])
    hi = pos.max(axis=0) + 1.2 if n else np.array([1.0, 1.0])
    span = hi - lo
    scale = min(14.0 / span[0], 9.0 / span[1], 1.6)
    fig = Figure(figsize=(max(span[0] * scale, 6.0), max(span[1] * scale, 4.5) + 1.4))
    ax = fig.add_axes((0.02, 0.02, 0.74, 0.86))
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.axis("off")

    # Sections first (underneath), each a padded hull in its own colour; larger ones further out.
    handles = {}
    order = sorted(range(inst.nsections), key=lambda s: -len(inst.section_spaces[s]))
    for rank, s in enumerate(order):
        members = inst.section_spaces[s]
        if not members:
            continue
        colour = SECTION_COLOURS[s % len(SECTION_COLOURS)]
        hull = _section_outline(pos, members, RADIUS * (1.45 + 0.12 * (rank % 3)))
        ax.add_patch(Polygon(hull, closed=True, facecolor=colour, alpha=0.10, edgecolor="none", zorder=0))
        ax.add_patch(Polygon(hull, closed=True, fill=False, edgecolor=colour, linewidth=1.6, zorder=1))
        top = hull[np.argmax(hull[:, 1])]
        ax.text(top[0], top[1] + 0.05, inst.section_ids[s], color=colour, ha="center", va="bottom",
                fontsize=9, fontweight="bold", zorder=5,
                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.8))
        label = inst.section_ids[s]
        if inst.section_numbers[s] is not None:
            label += f" (N={inst.section_numbers[s]})"
        terms = " + ".join(t.text for t in inst.section_terms[s])
        handles[s] = Patch(facecolor=colour, alpha=0.35, edgecolor=colour, label=f"{label}: {terms}")

    for a, b in inst.lines:
        ax.plot([pos[a, 0], pos[b, 0]], [pos[a, 1], pos[b, 1]], color="#8a8a8a", linewidth=1.4, zorder=2)

    neutral = set(inst.neutral)
    for i, sid in enumerate(inst.space_ids):
        c = inst.colours[i]
        ring = dict(edgecolor="#6a1b9a", linewidth=2.4, linestyle="--") if i in neutral else dict(
            edgecolor="black", linewidth=1.0)
        ax.add_patch(Circle(pos[i], RADIUS, facecolor=SPACE_FILL[c], zorder=3, **ring))
        ax.text(pos[i, 0], pos[i, 1] + 0.07, sid, color=SPACE_TEXT[c], ha="center", va="center",
                fontsize=8, fontweight="bold", zorder=4)
        ax.text(pos[i, 0], pos[i, 1] - 0.11, str(inst.numbers[i]), color=SPACE_TEXT[c], ha="center",
                va="center", fontsize=8, zorder=4)

    legend = [
        Patch(facecolor=SPACE_FILL[col], edgecolor="black", label=f"costs {L.COLOUR_NAMES[col]} cats")
        for col in inst.allowed_colours
    ]
    legend.append(Line2D([], [], color="#8a8a8a", linewidth=1.4, label="inspector line"))
    legend.append(Patch(facecolor="white", edgecolor="#6a1b9a", linestyle="--", linewidth=2.0,
                        label="neutral piece (3 players)"))
    sections = [handles[s] for s in sorted(handles)]
    fig.legend(handles=legend + sections, loc="upper left", bbox_to_anchor=(0.765, 0.88), fontsize=8,
               frameon=False, title="id / number on each space", title_fontsize=8)

    kind = "expansion" if inst.expansion else "base game"
    status = "reconstructed layout" if inst.reconstructed else "layout from the data file"
    fig.suptitle(f"{inst.name} ({inst.department_name} department, {kind}): {status}", fontsize=13, y=0.97)
    fig.text(0.5, 0.915, f"{n} spaces, total cost {inst.total_cost}; placement by spring layout, not the printed "
             "board", ha="center", fontsize=9, color="#555555")
    # The legend sits to the right of the axes; widen the canvas to hold long rule summaries.
    fmt = format or picture_format(path) or "png"
    extra = {"facecolor": "white"} if fmt == "jpeg" else {}
    fig.savefig(path, dpi=dpi, format=fmt, bbox_inches="tight", pad_inches=0.3, **extra)
    return path
