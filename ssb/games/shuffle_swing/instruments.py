"""``ssb instruments``: list, show, validate and draw the instruments of Shuffle and Swing (the
boards of every other game are ``ssb boards``, :mod:`ssb.game_cmd`)."""

from pathlib import Path

import click

from simulator.errors import DataError
from simulator.shuffle_swing import layout as L
from simulator.shuffle_swing.board import load_board
from simulator.shuffle_swing.library import InstrumentLibrary
from ssb.common import SsbGroup, UserError, instrument_dir_option, old_spelling, table


# --------------------------------------------------------------------------- instruments


@click.group(cls=SsbGroup)
def instruments():
    """List, show, validate and draw instrument boards.

    Instruments are TOML files in simulator/shuffle_swing/data/instruments; --instrument-dir adds more.

    Example:

    \b
        ssb instruments list
    """


@instruments.command("list")
@instrument_dir_option
def instruments_list(instrument_dirs):
    """Table of every instrument: department, set, spaces, total cost, sections and scoring rules.

    Example:

    \b
        ssb instruments list --instrument-dir my_instruments/
    """
    lib = InstrumentLibrary(extra_dirs=tuple(instrument_dirs))
    rows = [
        (
            i.name,
            i.department_name,
            "expansion" if i.expansion else "base",
            i.nspaces,
            i.total_cost,
            i.nsections,
            i.rule_summary(),
        )
        for i in lib
    ]
    click.echo(table(("name", "department", "set", "spaces", "cost", "sections", "rules"), rows))


def show_instrument_text(inst):
    """The layout of one instrument as text lines."""
    out = []
    kind = "expansion" if inst.expansion else "base game"
    out.append(f"{inst.name}: {inst.department_name} department, {kind}")
    paid = " and ".join(L.COLOUR_NAMES[c] for c in inst.allowed_colours)
    out.append(
        f"{inst.nspaces} spaces, total cost {inst.total_cost}, built with {paid} cats, "
        f"penalty {inst.penalty_per_space} per unbuilt space"
    )
    if inst.description:
        out.append(inst.description)
    out.append(f"File: {inst.path}")
    out.append("")
    out.append("Spaces:")
    rows = []
    for i, sid in enumerate(inst.space_ids):
        secs = ",".join(inst.section_ids[s] for s in inst.space_sections[i]) or "-"
        links = ",".join(inst.space_ids[j] for j in inst.neighbours(i))
        rows.append((sid, inst.numbers[i], L.COLOUR_NAMES[inst.colours[i]], secs, links))
    out += ["  " + line for line in table(("id", "number", "colour", "sections", "lines to"), rows).splitlines()]
    out.append("")
    out.append(f"Inspector lines ({len(inst.lines)}):")
    pairs = [f"{inst.space_ids[a]}-{inst.space_ids[b]}" for a, b in inst.lines]
    for k in range(0, len(pairs), 10):
        out.append("  " + " ".join(pairs[k : k + 10]))
    out.append("")
    out.append("Sections:")
    for s, sid in enumerate(inst.section_ids):
        extras = []
        if inst.section_symbols[s]:
            extras.append(f"symbol {inst.section_symbols[s]}")
        if inst.section_numbers[s] is not None:
            extras.append(f"number {inst.section_numbers[s]}")
        extra = f" ({', '.join(extras)})" if extras else ""
        spaces = " ".join(inst.space_ids[i] for i in inst.section_spaces[s])
        out.append(f"  {sid}{extra}: {spaces}")
        out.append(f"    scoring: {' + '.join(t.text for t in inst.section_terms[s])}")
        if inst.section_adjacent[s]:
            out.append(f"    adjacent: {', '.join(inst.section_ids[a] for a in inst.section_adjacent[s])}")
    out.append("")
    out.append(f"Neutral spaces (3 players): {', '.join(inst.space_ids[i] for i in inst.neutral)}")
    tokens = [str(k) for k, t in enumerate(inst.track_token) if t]
    out.append(
        f"Brag track: pieces needed {'/'.join(map(str, inst.track_need))}; "
        f"points {'/'.join(map(str, inst.track_vp))}; "
        f"{L.TOKEN_NAMES[inst.department]} token on spaces {', '.join(tokens) or 'none'}"
    )
    if inst.reconstructed:
        out.append("")
        out.append(
            "Note: this layout is reconstructed. The printed board is not public; the sections and "
            "their scoring follow the instrument appendix, the spaces, numbers, colours and lines are "
            "a plausible design."
        )
    return out


@instruments.command("show")
@click.argument("name")
@instrument_dir_option
def instruments_show(name, instrument_dirs):
    """Print one instrument's layout: spaces, lines, sections and their rules, neutral spaces.

    Example:

    \b
        ssb instruments show Horns
    """
    inst = InstrumentLibrary(extra_dirs=tuple(instrument_dirs)).get(name)
    click.echo("\n".join(show_instrument_text(inst)))


@instruments.command("validate")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
def instruments_validate(paths):
    """Load and check instrument files; a folder checks every *.toml in it.

    Prints OK per good file and the error (file, key, reason) per bad one; the exit status is 2
    if any file failed.

    Example:

    \b
        ssb instruments validate my_instruments/tuba.toml
    """
    from simulator.shuffle_swing.library import validate_paths

    failed = 0
    for f, result in validate_paths(paths, load_board()):
        if isinstance(result, DataError):
            failed += 1
            click.echo(f"error: {result}", err=True)
        else:
            click.echo(f"OK {f}: {result}")
    if failed:
        raise click.exceptions.Exit(2)


@instruments.command("draw")
@click.argument("name")
@click.option(
    "-o",
    "--out",
    "output",
    default=None,
    type=click.Path(dir_okay=False),
    metavar="FILE.png",
    help="Picture to write (required); its suffix chooses the format: .png, .svg, .pdf or .jpg.",
)
@old_spelling("--output", "output", type=click.Path(dir_okay=False))
@instrument_dir_option
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors (the picture is written all the same).")
def instruments_draw(name, output, instrument_dirs, quiet=False):
    """Draw an instrument's reconstructed layout as a picture (PNG, SVG, PDF or JPEG, by suffix).

    Spaces are circles filled with the cat colour they cost, labelled with id and number; grey lines
    are the inspector lines; each section is an outlined, labelled group.

    Example:

    \b
        ssb instruments draw Piano -o piano.png
    """
    if output is None:
        raise click.BadParameter("give the picture to write, e.g. -o piano.png", param_hint="--out")
    from simulator.shuffle_swing.drawing import PICTURE_FORMATS, draw_instrument, picture_format

    if picture_format(output) is None:
        raise UserError(
            f"-o: {output}: cannot tell the picture type from the suffix "
            f"'{Path(output).suffix}'; use one of {', '.join(PICTURE_FORMATS)}"
        )
    inst = InstrumentLibrary(extra_dirs=tuple(instrument_dirs)).get(name)
    try:
        draw_instrument(inst, output)
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror or exc}") from None
    if not quiet:
        click.echo(f"wrote {output}")
