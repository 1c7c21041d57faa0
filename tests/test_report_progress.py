"""``ssb report`` is never silent longer than its line interval while it builds, and says which step."""

import time

from ssb import report_cmd


def test_a_long_report_says_the_seconds_elapsed_and_the_step(capsys):
    stage = ["reading the run's tables"]
    with report_cmd._elapsed_lines(stage, quiet=False, every=0.05):
        time.sleep(0.12)
        stage[0] = "writing the page, its tables and charts"
        time.sleep(0.12)
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("  building the report: ") for line in err)
    assert "(reading the run's tables)" in err[0] and "(writing the page, its tables and charts)" in err[-1]


def test_a_quiet_or_quick_report_says_nothing(capsys):
    with report_cmd._elapsed_lines(["x"], quiet=True, every=0.01):
        time.sleep(0.05)
    with report_cmd._elapsed_lines(["x"], quiet=False, every=10):
        pass
    assert capsys.readouterr().err == ""


def test_the_report_is_told_each_step(tmp_path, monkeypatch):
    from reports import make

    said = []
    monkeypatch.setattr(make, "load_run", lambda d, allow_partial=False: said.append("loaded") or "run")
    monkeypatch.setattr(make, "build_report", lambda run, **kw: said.append("built") or "rep")
    monkeypatch.setattr(make, "write_report", lambda rep, out: said.append("written") or {})
    monkeypatch.setattr(make, "_declared_game", lambda d: None)
    make.make_report(tmp_path, step=said.append)
    assert said == ["reading the run's tables", "loaded", "judging the cells and building the sections", "built",
                    "writing the page, its tables and charts", "written"]
