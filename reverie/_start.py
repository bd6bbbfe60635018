"""The ``reverie`` command's entry point, kept the smallest module it can be: before anything else
is imported it makes Ctrl-C and SIGTERM end the process quietly (one line, then death by the signal:
the shell sees 130 or 143), so a signal during the ~50 ms of imports before Reverie's own handlers
(``reverie.cli._signals``) are in place never prints Python's traceback. Nothing has been written
by then, so ending at once loses nothing. ``reverie.cli.main`` puts Python's handlers back when it
takes over."""

import os
import signal


def _early(signum: int, _frame: object) -> None:
    os.write(2, b"reverie: terminated\n" if signum == signal.SIGTERM else b"reverie: interrupted\n")
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def main() -> int:
    """Run the command line (``reverie.cli.main``) as the process's own entry point. (Importing
    this module does nothing: a tool that walks the package imports it too.)"""
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:  # a shell's background job ignores it
            signal.signal(sig, _early)
    try:
        from .cli import main as run

        return run()
    except KeyboardInterrupt:  # in the few bytecodes between the handlers' hand-over
        os.write(2, b"reverie: interrupted\n")
        return 130
