"""What the ``ssb`` command modules share: the user-error exception, the ``--out DIR`` option and the
check of the run options. (``ssb.cli`` imports the command modules at its end, so they cannot import
these from it.)"""

import click


class UserError(click.ClickException):
    """A mistake of the user's: shown as ``error: <message>`` on stderr, exit status 2."""

    exit_code = 2

    def show(self, file=None):
        click.echo(f"error: {self.format_message()}", file=file, err=file is None)


def out_dir_option(help_text):
    """``--out DIR`` (the parameter ``out_dir``, default None): the folder a command writes."""

    def decorate(f):
        return click.option(
            "--out", "out_dir", type=click.Path(file_okay=False), default=None, metavar="DIR", help=help_text
        )(f)

    return decorate


def run_backend(resume, force, backend, scheduler):
    """The backend of a command that plays a run: ``--resume`` and ``--force`` exclude each other,
    ``--scheduler`` implies (and needs) dask; a mistake is a UserError."""
    if resume and force:
        raise UserError("--resume and --force exclude each other")
    if scheduler and backend == "local":
        raise UserError("--scheduler needs --backend dask")
    return backend or ("dask" if scheduler else "local")
