"""The dask.distributed backend gives the same tables as the local backend.

A LocalCluster of two worker processes on the loopback address stands in for a real scheduler;
the run connects to it by address, as ``ssb run --scheduler tcp://...`` would.
"""

import pandas as pd
import pytest

from scenarios.results import load_results
from scenarios.runner import run_scenario

distributed = pytest.importorskip("distributed")

TINY = """\
name = "tiny-dask"
seed = 11
games = 24
players = [3, 4]

[instruments]
sets = [["Violin", "Piano", "Horns"], ["Guitar", "Harp", "Trombone"]]

[lineup]
mirror = "greedy"
seats = { 3 = ["greedy", "random", "random"], 4 = ["random", "greedy", "random", "greedy"] }
"""


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as c:
        yield c


def test_dask_scheduler_matches_local(cluster, tmp_path):
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    local = run_scenario(scenario, tmp_path / "local", jobs=1)
    dask = run_scenario(scenario, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address, chunk_size=5)
    assert dask.games_played == local.games_played == 2 * 24 + 2 * 24 + 2 * 24 + 2 * 24
    sl, gl, _ = load_results(tmp_path / "local")
    sd, gd, manifest = load_results(tmp_path / "dask")
    pd.testing.assert_frame_equal(sl, sd)
    pd.testing.assert_frame_equal(gl, gd)
    run = manifest["timings"]["runs"][0]
    assert run["backend"] == "dask" and run["scheduler"] == cluster.scheduler_address


def test_dask_local_cluster_and_resume(tmp_path):
    """Without an address the runner starts its own LocalCluster; resume works across backends."""
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    run_scenario(scenario, tmp_path / "ref", jobs=1, chunk_size=8)
    out = tmp_path / "dask"
    run_scenario(scenario, out, jobs=1, chunk_size=8)
    from scenarios.results import chunk_paths, read_manifest, write_manifest

    for c in (1, 4):
        chunk_paths(out, c)[0].unlink()
    m = read_manifest(out)
    m["status"] = "running"
    write_manifest(out, m)
    summary = run_scenario(scenario, out, backend="dask", jobs=2, resume=True)
    assert summary.games_played == 16
    a, b = load_results(tmp_path / "ref"), load_results(out)
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])


SEQUENTIAL = """\
name = "seq-dask"
seed = 11
games = 2000
players = [2, 3]

[instruments]
sets = [["Violin", "Piano", "Horns"]]

[lineup]
mirror = "greedy"

[sequential]
budget = 2400
round = 400
"""


@pytest.mark.slow
def test_dask_sequential_run_stops_where_the_local_one_does(cluster, tmp_path):
    """The stopping points of a sequential run do not depend on the backend either."""
    from scenarios.results import read_manifest

    scenario = tmp_path / "seq.toml"
    scenario.write_text(SEQUENTIAL)
    run_scenario(scenario, tmp_path / "local", jobs=1)
    run_scenario(scenario, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address, chunk_size=90)
    keep = ("cell", "verdict", "games", "looks", "stop")
    recs = [[{k: r[k] for k in keep} for r in read_manifest(tmp_path / d)["sequential"]["cells"]] for d in ("local", "dask")]
    assert recs[0] == recs[1] and recs[0][0]["looks"][0] == 400
    pd.testing.assert_frame_equal(load_results(tmp_path / "local")[1], load_results(tmp_path / "dask")[1])
