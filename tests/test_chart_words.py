"""Charts that read at a glance: sources named by instrument, imbalanced seats marked."""

import io
import sys
from pathlib import Path

import pandas as pd
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from report_tables import synthetic_run  # noqa: E402

from reports import charts  # noqa: E402
from reports.sections.shuffle_swing import source_charts  # noqa: E402
from reports.seats import seat_advantage  # noqa: E402

VERMILLION = (0xD5, 0x5E, 0x00)


def _has_colour(png, rgb):
    with Image.open(io.BytesIO(png)) as im:
        colours = im.convert("RGB").getcolors(maxcolors=1_000_000) or []
    return sum(n for n, c in colours if c == rgb)


def test_sources_are_named_by_instrument_when_one_holds_the_department():
    one = pd.DataFrame({"instruments": ["Violin/Piano/Horns"] * 2})
    labels = [lab for lab, *_ in source_charts.source_labels(one)]
    assert "Violin objectives" in labels and "Horns end award" in labels and "unbuilt penalties" in labels
    assert not any(lab.startswith(("objective ", "brag ")) for lab in labels)
    two = pd.DataFrame({"instruments": ["Violin/Piano/Horns", "Bass/Piano/Horns"]})
    labels = [lab for lab, *_ in source_charts.source_labels(two)]
    assert "black instrument objectives" in labels and "Piano objectives" in labels


def test_imbalanced_seats_are_marked_on_the_seat_chart():
    _, biased = synthetic_run([{"players": 2, "games": 8000, "seat_probs": [0.6, 0.4]}], seed=1)
    _, fair = synthetic_run([{"players": 2, "games": 400}], seed=2)
    marked = charts.seat_win_rates(seat_advantage(biased).rates, 0.03, 0.95).png
    plain = charts.seat_win_rates(seat_advantage(fair).rates, 0.03, 0.95).png
    assert _has_colour(marked, VERMILLION) > 1000
    assert _has_colour(plain, VERMILLION) == 0
