"""An Echidna Shuffle board as a picture: spaces at their coordinates, arrows between them."""

import math


def draw_board(board, path):
    """Draw ``board`` to ``path`` (PNG, SVG or PDF by suffix); spaces without coordinates go on a circle."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = board.nspaces
    xy = [p if p is not None else (10 * math.cos(2 * math.pi * i / n), 10 * math.sin(2 * math.pi * i / n)) for i, p in enumerate(board.xy)]
    fig, ax = plt.subplots(figsize=(9, 9))
    for s, targets in enumerate(board.arrows):
        for t in targets:
            (x0, y0), (x1, y1) = xy[s], xy[t]
            two_way = s in board.arrows[t]
            ax.annotate(
                "",
                xy=(x1, y1),
                xytext=(x0, y0),
                arrowprops=dict(
                    arrowstyle="-|>",
                    color="#1f6f8b" if two_way else "#555555",
                    shrinkA=9,
                    shrinkB=9,
                    lw=1.2,
                    connectionstyle="arc3,rad=0.15" if two_way else "arc3,rad=0.0",
                ),
            )
    for i, (x, y) in enumerate(xy):
        branch = len(board.arrows[i]) > 1
        ax.scatter([x], [y], s=330, color="#c8e6c9" if not branch else "#ffe082", edgecolors="#2e7d32", zorder=3)
        ax.text(x, y, board.ids[i], ha="center", va="center", fontsize=6.5, zorder=4)
    recon = " (reconstructed)" if board.reconstructed else ""
    ax.set_title(f"Echidna Shuffle: {board.name} board{recon}, {n} spaces; yellow = two arrows out")
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
