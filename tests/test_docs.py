"""Every ``ssb`` command documents itself: a help text with an ``Example:`` that runs that command.

Adding a command without an example (or with an example of another command) fails here.
"""

import click
import pytest
from click.testing import CliRunner

from ssb.cli import cli


def _walk(cmd, path=()):
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name in sorted(cmd.commands):
            yield from _walk(cmd.commands[name], path + (name,))


COMMANDS = list(_walk(cli))


def test_every_command_is_walked():
    paths = {" ".join(p) for p, _ in COMMANDS}
    assert {"", "play", "check", "instruments", "instruments list", "instruments show", "instruments validate",
            "instruments draw", "strategies", "strategies list", "strategies show"} <= paths


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[" ".join(p) or "ssb" for p, _ in COMMANDS])
def test_help_has_an_example(path, cmd):
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    help_text = result.stdout
    assert cmd.help and cmd.help.strip(), f"'ssb {' '.join(path)}' has no help text"
    assert "Example:" in help_text, f"'ssb {' '.join(path)}' help lacks an Example:"
    after = help_text.split("Example:", 1)[1]
    examples = [line.strip() for line in after.splitlines() if line.strip().startswith("ssb ")]
    assert examples, f"'ssb {' '.join(path)}' Example: shows no ssb command line"
    prefix = " ".join(("ssb",) + path)
    assert any(e == prefix or e.startswith(prefix + " ") for e in examples), (
        f"no example of '{prefix}' in its own help: {examples}"
    )


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[" ".join(p) or "ssb" for p, _ in COMMANDS])
def test_every_option_has_help(path, cmd):
    for param in cmd.params:
        if isinstance(param, click.Option) and param.name not in ("help", "version"):
            assert param.help, f"option {param.opts} of 'ssb {' '.join(path)}' has no help"
