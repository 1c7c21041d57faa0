"""The compile notice and warm-up name the kernel of the game being played (``simulator.warmup``)."""

import simulator.warmup as warmup
from scenarios.runner import run_scenario
from simulator import games


def test_each_game_names_its_own_compiled_entry_point():
    from simulator.echidna.kernel import engine as echidna_kernel
    from simulator.shuffle_swing.kernel import engine

    assert warmup._entry(games.get().kernel_entry) is engine.play_batch
    assert warmup._entry(games.get("echidna").kernel_entry) is echidna_kernel.play_batch
    assert warmup._entry("simulator.echidna.kernel.engine:play_game") is echidna_kernel.play_game


def test_compile_times_are_recorded_per_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    warmup.record_compile(55.0)
    warmup.record_compile(12.0, games.get("echidna").kernel_entry)
    assert warmup.expected_compile_seconds() == 55.0
    assert warmup.expected_compile_seconds(games.get("echidna").kernel_entry) == 12.0
    assert warmup.compile_notice(entry=games.get("echidna").kernel_entry, what="x").startswith(
        "compiling x, first run only: about 12 s (last measured here at load "
    )


def test_an_echidna_run_warms_up_the_echidna_kernel(tmp_path, monkeypatch):
    """The runner asks about the second game's kernel, not the first's, and says which it compiles."""
    asked = []

    def cached(entry="play_batch"):
        asked.append(entry)
        return False

    monkeypatch.setattr(warmup, "kernel_cached", cached)
    monkeypatch.setattr(warmup, "record_compile", lambda seconds, entry="play_batch", cpu_seconds=None: None)
    notices = []
    run_scenario("echidna-ci", tmp_path / "run", jobs=1, games=2, progress=False, announce=notices.append)
    assert asked == ["simulator.echidna.kernel.engine:play_batch"]
    assert len(notices) == 1 and notices[0].startswith("compiling the Echidna Shuffle rules kernel, first run only")


def test_a_cached_echidna_kernel_is_seen_as_cached():
    from simulator.echidna.board import EchidnaSetup
    from simulator.echidna.playout import play_many
    from simulator.echidna.strategies import EchidnaStrategyLibrary

    setup = EchidnaSetup(2, "forest")
    play_many(setup, EchidnaStrategyLibrary().matrix(["random"] * 2), [1])
    assert warmup.kernel_cached(games.get("echidna").kernel_entry) is True
