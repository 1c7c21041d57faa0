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
    monkeypatch.setattr(warmup, "record_compile", lambda seconds, entry="play_batch", cpu_seconds=None, state="cold": None)
    notices = []
    run_scenario("echidna-ci", tmp_path / "run", jobs=1, games=2, progress=False, announce=notices.append)
    # Its warm-up's entry points (play_game, play_batch), then its first cell's own path: no first game's.
    assert set(asked) == {"simulator.echidna.kernel.engine:play_game", "simulator.echidna.kernel.engine:play_batch"}
    assert asked[-1] == "simulator.echidna.kernel.engine:play_batch"
    assert notices[0].startswith("compiling the Echidna Shuffle rules kernel (play_game), first run only")
    assert notices[-1].startswith("compiled the Echidna Shuffle rules kernel in ")


def test_a_cached_echidna_kernel_is_seen_as_cached():
    from simulator.echidna.board import EchidnaSetup
    from simulator.echidna.playout import play_many
    from simulator.echidna.strategies import EchidnaStrategyLibrary

    setup = EchidnaSetup(2, "forest")
    play_many(setup, EchidnaStrategyLibrary().matrix(["random"] * 2), [1])
    assert warmup.kernel_cached(games.get("echidna").kernel_entry) is True


def test_a_warm_figure_is_never_quoted_for_a_cold_compile(tmp_path, monkeypatch):
    """A second entry point compiled in the same process takes seconds (most of the kernel is there):
    its figure is kept apart, so a later cold compile quotes a cold one (measured here for it, else
    another entry point's, else the default), and a warm one quotes only a warm figure."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    warmup.record_compile(6.0, "play_batch", state=warmup.WARM)
    assert warmup.expected_compile_seconds("play_batch") == warmup.DEFAULT_COMPILE_SECONDS
    assert "not measured on this one yet" in warmup.compile_notice(entry="play_batch")
    warmup.record_compile(86.0, "play_game_plain", state=warmup.COLD)
    assert warmup.expected_compile_seconds("play_batch") == 86.0
    assert warmup.compile_notice(entry="play_batch").startswith(
        "compiling the rules kernel, first run only: about 90 s (last measured here for play_game_plain at load")
    warmup.record_compile(120.0, "play_batch", state=warmup.COLD)
    assert warmup.compile_notice(entry="play_batch").startswith(
        "compiling the rules kernel, first run only: about 120 s (last measured here at load")
    warm = warmup.compile_notice(entry="play_batch", state=warmup.WARM)
    assert "(after another entry point of it compiled in this process): about 6 s" in warm
    assert warmup.expected_compile_seconds("play_game", state=warmup.WARM) is None
    assert "not measured on this machine yet" in warmup.compile_notice(entry="play_game", state=warmup.WARM)


def test_a_compile_is_warm_once_another_entry_point_of_its_kernel_is_in_the_process():
    game = games.get()
    (first, play), *_, (last, _) = (game.warm or warmup.default_warm)(game)
    play()  # loaded from the cache or compiled: its functions are now in this process
    assert warmup.compile_state(last) == warmup.WARM


def test_a_compile_off_a_terminal_says_the_seconds_elapsed_at_least_every_tick(tmp_path, monkeypatch):
    import time as _time

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "kernel_cached", lambda entry="play_batch": False)
    monkeypatch.setattr(warmup, "TICK_SECONDS", 0.05)
    said = []
    warmup.compile_once(lambda: _time.sleep(0.3), said.append, entry="play_batch", what="the rules kernel")
    assert said[0].startswith("compiling the rules kernel, first run only")
    assert any(m.startswith("  still compiling the rules kernel: ") for m in said[1:-1])
    assert said[-1].startswith("compiled the rules kernel in ")
    assert warmup._record_path("play_batch", warmup.compile_state("play_batch")).exists()  # its state's figure


def test_a_run_recording_the_lead_compiles_the_lead_record_in_the_parent(tmp_path, monkeypatch):
    """The lead record has entry points of its own: the parent compiles them too (after the game's
    warm-up entries), so no worker compiles in silence."""
    asked = []

    def cached(entry="play_batch"):
        asked.append(entry)
        return "lead_record" not in entry and entry != "play_batch"  # the lead record and the batch cold

    monkeypatch.setattr(warmup, "kernel_cached", cached)
    monkeypatch.setattr(warmup, "record_compile", lambda seconds, entry="play_batch", cpu_seconds=None, state="cold": None)
    notices = []
    run_scenario("ci", tmp_path / "run", jobs=1, games=2, sets=("record=[\"lead\"]",), progress=False,
                 announce=notices.append)
    assert "simulator.shuffle_swing.lead_record:play_batch_lead" in asked
    assert any(n.startswith("compiling the rules kernel (the lead record), first run only") for n in notices)
    assert notices[-1].startswith("compiled the rules kernel (the lead record) in ")


def test_a_compile_no_entry_point_names_is_still_announced_counted_and_timed(tmp_path, monkeypatch):
    """A scenario's data may play games first (a leaf fitted on the setting): the first compile numba
    starts there is announced, and its time recorded for the next notice; nothing is said when
    nothing compiles."""
    import numba

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    key = "simulator.shuffle_swing.kernel.engine:data_files"
    said = []
    with warmup.watch_compiles(key, "the rules kernel (x)", echo=said.append):
        pass
    assert said == []

    @numba.njit(cache=False)
    def twice(x):
        return 2 * x

    with warmup.watch_compiles(key, "the rules kernel (x)", echo=said.append):
        assert twice(3) == 6
    assert said[0].startswith("compiling the rules kernel (x), first run only")
    assert said[-1].startswith("compiled the rules kernel (x) in ")
    state = warmup.compile_state(key)
    assert warmup._last_record(key, state) is not None or warmup._last_record(key, warmup.COLD) is not None


def test_a_compile_shorter_than_a_tenth_of_a_second_is_still_a_measured_figure(tmp_path, monkeypatch):
    """A fast machine compiles a small kernel in hundredths of a second: the record keeps it (a figure
    rounded to 0.0 would read as never measured, and the next notice would quote the default)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    warmup.record_compile(0.03, "play_batch", cpu_seconds=0.02)
    doc = warmup._last_record("play_batch", warmup.COLD)
    assert doc is not None and 0 < doc["seconds"] < 0.1
    assert "last measured here" in warmup.compile_notice(entry="play_batch")
