"""Command-line tools: thin main()s over library calls."""

from __future__ import annotations


def default_sigpipe() -> None:
    """Die quietly when stdout is a pipe its reader closed (``tool | head``),
    as C tools do, instead of reporting a write error.  Called by the console
    scripts only (never for in-process ``main(argv)`` calls or the server,
    whose sockets must not kill it)."""
    import signal

    if hasattr(signal, "SIGPIPE"):
        try:
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        except ValueError:  # not the main thread
            pass
