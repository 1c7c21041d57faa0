"""``ssb strategies meta``: the meta-game of a strategy pool and the skill-vs-luck figure."""

import json
from pathlib import Path

import click

from simulator import games as registry
from simulator.shuffle_swing.library import STARTER
from ssb.common import DEFAULT_SEED, check_players, refuse_other_game_options
from ssb.strategy_tune_cmd import job_count, name_list


def format_meta(result):
    """The command's text: the share matrix, the equilibrium with its bootstrap, the skill figure."""
    names = result["names"]
    short = [n.replace("greedy@temperature=", "T=").replace("specialist:", "spec:") for n in names]
    w = max(len(s) for s in short) + 2
    lines = [f"Meta-game, {result['setting']}: {result['deals']} deals per pair, seed {result['seed']} "
             "(row's share of the wins against the column, par 50%)", ""]
    lines.append(" " * w + "".join(f"{s:>{w}}" for s in short))
    for s, row in zip(short, result["shares"]):
        lines.append(f"{s:<{w}}" + "".join(f"{100 * x:>{w}.1f}" for x in row))
    lines.append("")
    eq = result["equilibrium"]
    lines.append("Nash equilibrium (nashpy, zero-sum linear program): "
                 + ", ".join(f"{n} {100 * eq[n]:.1f}%" for n in names if eq[n] > 1e-6))
    lines.append(f"Verdict: {result['verdict']}" + (f"; {result['dominant']} beats every other strategy head to head"
                                                     if result["dominant"] else "; no strategy beats every other"))
    b = result["bootstrap"]
    lines.append(f"Bootstrap over deals ({b['reps']} resamples): the same support {100 * b['same_support']:.0f}% of the "
                 "time; in the support: " + ", ".join(f"{n} {100 * v:.0f}%" for n, v in b["in_support"].items() if v > 0))
    sk = result.get("skill")
    if sk:
        o = sk["one_seat"]
        lines.append("")
        lines.append(f"Skill vs luck: {sk['strong']} as one seat against {sk['players'] - 1} {sk['weak']}: "
                     f"{100 * o['share']:.1f}% [{100 * o['lo']:.1f}, {100 * o['hi']:.1f}] (par {100 * o['par']:.1f}%, "
                     f"skill {o['skill']:.2f}), {o['deals']} deals")
        for key in ("two_against_two", "head_to_head"):
            if key in sk:
                t = sk[key]
                lines.append(f"  {key.replace('_', ' ')}: {100 * t['share']:.1f}% [{100 * t['lo']:.1f}, {100 * t['hi']:.1f}] "
                             f"(par 50%, skill {t['skill']:.2f})")
    return "\n".join(lines)


@click.command("meta")
@click.option("--pool", default=None, metavar="A,B,...", help="Strategies of the pool (NAME[@param=value]); default: two rungs around greedy, tuned and the personas.")
@click.option("--players", type=click.IntRange(2), default=4, show_default=True, help="Player count, one the game plays (the seats split between the two strategies of a pair).")
@click.option("--deals", type=click.IntRange(2), default=60, show_default=True, help="Deals per pair (every seat arrangement of each).")
@click.option("--game", default=registry.DEFAULT_GAME, show_default=True, metavar="NAME", help=f"The game whose strategies meet: {', '.join(registry.names())}.")
@click.option("--board", default=None, metavar="NAME", help="A game of boards: the board (default: the game's first).")
@click.option("--instruments", default=",".join(STARTER), show_default=True, metavar="A,B,C", help="The instrument set.")
@click.option("--instrument-dir", "instrument_dirs", multiple=True, metavar="DIR", help="Folder of extra instruments; may be repeated.")
@click.option("--strategy-dir", "strategy_dirs", multiple=True, metavar="DIR", help="Folder of extra strategy profiles (*.toml); may be repeated.")
@click.option("--skill", "skill", default=None, metavar="STRONG,WEAK", help="The skill-vs-luck pair ('' to skip; default the game's, tuned,greedy for Shuffle and Swing).")
@click.option("--bootstrap", "reps", type=click.IntRange(0), default=200, show_default=True, help="Bootstrap resamples of the deals.")
@click.option("--seed", type=click.IntRange(0), default=DEFAULT_SEED, show_default=True, help="Seed of every deal (and of the bootstrap).")
@click.option("-j", "--jobs", type=click.IntRange(0), default=1, show_default=True, help="Worker processes (0: one per core); the figures do not depend on it.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, metavar="FILE", help="Also write every figure as JSON.")
def strategies_meta(pool, players, deals, game, board, instruments, instrument_dirs, strategy_dirs, skill, reps, seed, jobs, json_path):
    """The meta-game of a strategy pool on one setting: every pair head to head (the seats split
    between them, every arrangement of each deal, the same deals for every pair), the Nash
    equilibrium of that empirical two-player zero-sum game (nashpy), its support (does one strategy
    dominate, or is the meta-game mixed?) and its stability under a bootstrap over deals; then the
    skill-vs-luck figure of the setting (the stronger of --skill as one seat against the weaker).

    Example:

    \b
        ssb strategies meta --deals 60 --jobs 2
        ssb strategies meta --instruments Violin,Organ,Horns --deals 60 --jobs 2
        ssb strategies meta --pool greedy,bragger,builder,majority,specialist:orange --skill ''
    """
    from reports.metagame import summary
    from strategies import metagame as MG

    g = registry.get(game, "--game", "game")
    refuse_other_game_options(click.get_current_context(), g, "instruments", "instrument_dirs")  # (Game.cli_options)
    if g.ladder is None or not g.ladder.meta_pool:
        raise click.BadParameter(f"{g.title} declares no meta-game pool (Game.ladder.meta_pool)", param_hint="--game")
    check_players(g, [players])
    if board is not None and board not in g.boards:
        raise click.BadParameter(f"'{board}' is not a board of {g.title} ({', '.join(g.boards) or 'it has none'})", param_hint="--board")
    board = board or (g.boards[0] if g.boards else None)
    names = name_list(pool, "strategy") if pool else g.ladder.meta_pool
    if len(names) < 2:
        raise click.BadParameter("a pool needs at least two strategies", param_hint="--pool")
    insts = name_list(instruments, "instrument")
    kw = dict(players=players, deals=deals, instruments=insts, instrument_dirs=instrument_dirs,
              strategy_dirs=strategy_dirs, seed=seed, jobs=job_count(jobs), game=g.name, board=board)
    per_deal = MG.play_pool(names, log=lambda m: click.echo(m, err=True), **kw)
    result = summary(per_deal, names, reps=reps or 1, seed=seed)
    result.update(setting=f"{players}p " + (board if g.boards else "/".join(insts)), deals=deals, seed=seed, game=g.name)
    if skill is None:
        skill = ",".join(g.ladder.skill_pair)
    if skill.strip():
        pair = name_list(skill, "strategy")
        if len(pair) != 2:
            raise click.BadParameter("give STRONG,WEAK", param_hint="--skill")
        result["skill"] = MG.skill_figures(pair[0], pair[1], **kw)
    from strategies.ladder import cpu_model

    result["cpu"] = cpu_model()
    click.echo(format_meta(result))
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=2), encoding="utf-8")
        click.echo(f"wrote {json_path}")
