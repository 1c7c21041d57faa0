"""``ssb strategies meta``: the meta-game of a strategy pool on the real player count, how its answer
moves with the pool, and the skill-vs-bot-noise figure."""

import json
import os
from pathlib import Path

import click

from simulator import games as registry
from ssb import games as game_cli
from ssb.common import DEFAULT_SEED, UserError, check_json_path as _check_json_path, check_players, \
    refuse_other_game_options, write_json
from ssb.strategy_tune_cmd import job_count

MAX_GAMES = 50_000_000  # what one command may play: about a day of greedy games on two cores
MIN_BOOTSTRAP = 10  # fewer resamples give no stability share worth printing
MAX_BOOTSTRAP = 10_000  # 50 times the default: the shares' error is below 0.5 points long before


class DealCount(click.ParamType):
    """A deal count: a whole number (``60``, ``1e3``) from 2 up; its size is checked against
    :data:`MAX_GAMES` once the pool is known."""

    name = "N"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            n = value
        else:
            try:
                x = float(str(value).strip())
            except ValueError:
                self.fail(f"'{value}' is not a whole number of deals", param, ctx)
            if x != x or x in (float("inf"), float("-inf")) or x != int(x):
                self.fail(f"'{value}' is not a whole number of deals", param, ctx)
            n = int(x)
        if n < 2:
            self.fail(f"{n} deals: at least 2 (the intervals count deals)", param, ctx)
        return n


def _names(value, what, hint):
    """A comma list of names, none empty and none twice."""
    names = [n.strip() for n in str(value).split(",")]
    if not any(names):
        raise click.BadParameter(f"give at least two {what}s, comma-separated (got none)", param_hint=hint)
    if any(not n for n in names):
        raise click.BadParameter(f"an empty {what} name in '{value}'", param_hint=hint)
    seen = set()
    for n in names:
        if n in seen:
            raise click.BadParameter(f"{what} '{n}' is given twice (each strategy plays once)", param_hint=hint)
        seen.add(n)
    return tuple(names)


def _short(n):
    return n.replace("greedy@temperature=", "T=").replace("specialist:", "spec:")


def format_meta(result):
    """The command's text: the single-deviant table, alpha-rank, the strategies no single deviant
    beats, their bootstrap, the two-team reduction, how the answer moves with the pool, the skill
    figure."""
    full = result["full"]
    names, n = full["names"], full["players"]
    short = [_short(x) for x in names]
    w = max(len(s) for s in short) + 2
    lines = [f"Meta-game, {result['setting']}: {n} players, every profile of two strategies at the table "
             f"(1 to {n - 1} seats each, every arrangement), {result['deals']} deals, seed {result['seed']}", "",
             f"Row as the single deviant against {n - 1} of the column: its win rate per seat, % (par {100 / n:.1f}%)",
             " " * w + "".join(f"{s:>{w}}" for s in short)]
    for s, row in zip(short, full["deviant"]):
        lines.append(f"{s:<{w}}" + "".join(f"{100 * x:>{w}.1f}" for x in row))
    lines.append("")
    a, b = full["alpharank"], full["bootstrap"]
    lines.append(f"Alpha-rank (alpha {a['alpha']:g}, the table as the population): "
                 + ", ".join(f"{k} {100 * v:.1f}%" for k, v in a["mass"].items() if v >= 0.0005))
    lines.append(f"Verdict: {full['verdict']}.")
    lines.append(f"Bootstrap over deals ({b['reps']} resamples): the same first strategy {100 * b['same_first']:.0f}% of the "
                 f"time; the same strategies no single deviant beats {100 * b['same_resisting']:.0f}%; unbeaten by any "
                 "single deviant: " + (", ".join(f"{k} {100 * v:.0f}%" for k, v in b["resisting_share"].items() if v > 0)
                                       or "none"))
    t = full["team"]
    lines.append(f"Two-team reduction (the seats split {n // 2}-{n - n // 2}, a zero-sum team game the real game never "
                 "plays; nashpy): " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in t["equilibrium"].items() if v > 1e-6)
                 + f" (the same support in {100 * b['same_team_support']:.0f}% of the resamples)")
    lines += ["", "How the answer moves with the pool (the same games; alpha-rank's first, unbeaten by a single deviant, "
              "two-team support):"]
    for r in full["pools"]:
        lines.append(f"  {r['pool']:<28} {r['alpharank_first']} ({100 * r['mass']:.0f}%); "
                     f"{', '.join(r['resisting']) or 'none'}; {', '.join(r['team_support'])}")
    sk = result.get("skill")
    if sk:
        o = sk["one_seat"]
        lines.append("")
        lines.append(f"Skill: {sk['strong']} as one seat against {sk['players'] - 1} {sk['weak']}: "
                     f"{100 * o['share']:.1f}% [{100 * o['lo']:.1f}, {100 * o['hi']:.1f}] (par {100 * o['par']:.1f}%, "
                     f"skill {o['skill']:.2f}), {o['deals']} deals")
        for key in ("two_against_two", "head_to_head"):
            if key in sk:
                x = sk[key]
                lines.append(f"  {key.replace('_', ' ')}: {100 * x['share']:.1f}% [{100 * x['lo']:.1f}, {100 * x['hi']:.1f}] "
                             f"(par 50%, skill {x['skill']:.2f})")
    return "\n".join(lines)


@click.command("meta")
@click.option("--pool", default=None, metavar="A,B,...", help="Strategies of the pool (NAME[@param=value]), each once; default: the game's pool, with the ladder's strong rungs (search for Shuffle and Swing).")
@click.option("--players", type=click.IntRange(2), default=4, show_default=True, help="Player count, one the game plays: the meta-game is played at that table.")
@click.option("--deals", type=DealCount(), default=60, show_default=True, help="Deals per profile (every seat arrangement of each); the games it makes are limited.")
@click.option("--game", default=registry.DEFAULT_GAME, show_default=True, metavar="NAME", help=f"The game whose strategies meet: {', '.join(registry.names())}.")
@click.option("--board", default=None, metavar="NAME", help="A game of boards: the board (default: the game's first).")
@game_cli.options("meta")
@click.option("--strategy-dir", "strategy_dirs", multiple=True, metavar="DIR", help="Folder of extra strategy profiles (*.toml); may be repeated.")
@click.option("--skill", "skill", default=None, metavar="STRONG,WEAK", help="The skill pair, two different strategies ('' to skip; default the game's, tuned,greedy for Shuffle and Swing).")
@click.option("--alpha", type=click.FloatRange(0, min_open=True), default=50.0, show_default=True, help="Alpha-rank's ranking intensity (payoffs are win rates per seat).")
@click.option("--bootstrap", "reps", type=click.IntRange(MIN_BOOTSTRAP, MAX_BOOTSTRAP), default=200, show_default=True, help=f"Bootstrap resamples of the deals ({MIN_BOOTSTRAP} to {MAX_BOOTSTRAP:,}: the stability shares need some, and their error is below half a point long before the most).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines: only the figures (and nothing else with --json).")
@click.option("--seed", type=click.IntRange(0), default=DEFAULT_SEED, show_default=True, help="Seed of every deal (and of the bootstrap).")
@click.option("-j", "--jobs", type=click.IntRange(0), default=1, show_default=True, help="Worker processes (0: one per core); the figures do not depend on it.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, metavar="FILE", help="Also write every figure as JSON (its folder must exist; checked before playing).")
def strategies_meta(pool, players, deals, game, board, strategy_dirs, skill, alpha, reps, seed, jobs, json_path,
                    quiet=False, instruments=(), instrument_dirs=()):
    """The meta-game of a strategy pool on the real player count: every profile of two strategies
    at the table (one seat of A against the rest of B up to the reverse, every arrangement of each
    deal, the same deals for every pair); then which strategy no single deviant beats, alpha-rank's
    ranking, the two-team reduction's Nash equilibrium (nashpy) for comparison, each with its
    stability under a bootstrap over deals, and how the answer moves with the pool (the same games,
    sub-pools). Last, the skill figure of the setting (the stronger of --skill as one seat against
    the weaker).

    Example:

    \b
        ssb strategies meta --deals 60 --jobs 2
        ssb strategies meta --instruments Violin,Organ,Horns --deals 60 --jobs 2
        ssb strategies meta --pool greedy,bragger,builder,majority,specialist:orange --skill ''
    """
    from reports.metagame import full_summary
    from strategies import metagame as MG
    from strategies.ladder import cpu_model

    g = registry.get(game, "--game", "game")
    refuse_other_game_options(click.get_current_context(), g, "instruments", "instrument_dirs")  # (Game.cli_options)
    if g.ladder is None or not g.ladder.meta_pool:
        raise click.BadParameter(f"{g.title} declares no meta-game pool (Game.ladder.meta_pool)", param_hint="--game")
    check_players(g, [players])
    if board is not None and board not in g.boards:
        raise click.BadParameter(f"'{board}' is not a board of {g.title} ({', '.join(g.boards) or 'it has none'})", param_hint="--board")
    board = board or (g.boards[0] if g.boards else None)
    names = _names(pool, "strategy", "--pool") if pool is not None else tuple(g.ladder.meta_pool)
    if len(names) < 2:
        raise click.BadParameter(f"a pool needs at least two strategies (got {', '.join(names)})", param_hint="--pool")
    if skill is None:
        skill = ",".join(g.ladder.skill_pair)
    pair = None
    if skill.strip():
        pair = [n.strip() for n in skill.split(",")]
        if len(pair) != 2 or not all(pair):
            raise click.BadParameter(f"give STRONG,WEAK: two strategies (got '{skill}')", param_hint="--skill")
        if pair[0] == pair[1]:
            raise click.BadParameter(f"STRONG and WEAK are both '{pair[0]}': give two different strategies", param_hint="--skill")
    pairs = len(names) * (len(names) - 1) // 2
    games = MG.profile_games(players, pairs, deals) + (deals * (players + 6) if pair else 0)
    if games > MAX_GAMES:
        raise click.BadParameter(f"{deals} deals would play about {games:.3g} games ({pairs} pairs x every arrangement "
                                 f"of {players} seats); the limit is {MAX_GAMES:,}", param_hint="--deals")
    _check_json_path(json_path)
    insts = [n.strip() for n in instruments if n.strip()]
    kw = dict(players=players, deals=deals, instruments=insts, instrument_dirs=instrument_dirs,
              strategy_dirs=strategy_dirs, seed=seed, jobs=job_count(jobs), game=g.name, board=board)
    per_profile = MG.play_profiles(names, log=(lambda m: None) if quiet else (lambda m: click.echo(m, err=True)), **kw)
    result = {"setting": f"{players}p " + (board if g.boards else "/".join(insts)), "deals": deals, "seed": seed,
              "game": g.name, "full": full_summary(per_profile, names, players, reps=reps, seed=seed, alpha=alpha,
                                                   strong=g.ladder.meta_strong)}
    if pair:
        result["skill"] = MG.skill_figures(pair[0], pair[1], **kw)
    result["cpu"] = cpu_model()
    if json_path:  # written before the figures are printed: a full disk loses nothing printed
        write_json(json_path, result)
    if not (quiet and json_path):
        click.echo(format_meta(result))
    if json_path and not quiet:
        click.echo(f"wrote {json_path}")


