"""Tracing: TFRT's debug tracing sink and per-kernel Chrome/Perfetto traces.

Two consumers, one hook.  When a program has a tracer, its functions run on
the traced interpreter (``tfrt.executor._TracedExecution``), which calls
``tracer.begin(site)`` / ``tracer.end(site, token)`` around every kernel;
without one they run on the plain interpreter or the compiled fast path, so
tracing that is off costs nothing per kernel.

* :class:`DebugTracingSink` reproduces ``bef_executor --enable_tracing``:
  ``Scope:<name>`` / ``End Scope`` lines (kernels too at ``--tracing_level=debug``).
  TFRT writes them to an unflushed ``llvm::outs()``, so they appear after the
  program's own (flushed) output; the sink buffers them the same way.
* :class:`ChromeTracer` records one complete event per kernel (name, source
  location, thread, start, duration) and writes the Chrome trace-event JSON
  format that ``chrome://tracing`` and Perfetto load::

      tracer = ChromeTracer()
      program.tracer = tracer
      ...run...
      tracer.write("trace.json")
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any, TextIO

from tfrt.bef import program as bp

LEVELS = ("none", "default", "verbose", "debug")


def level_index(level: str) -> int:
    if level not in LEVELS:
        raise ValueError(f"unknown tracing level '{level}' (expected default, verbose or debug)")
    return LEVELS.index(level)


def _location_text(site: Any) -> str:
    loc = site.decoded_location()
    flc = bp.file_line_col(loc)
    if flc is not None:
        return f"{flc.file}:{flc.line}:{flc.col}"
    from tfrt.executor import location_to_string

    return location_to_string(loc)


class DebugTracingSink:
    """Buffers ``Scope:``/``End Scope`` lines; :meth:`flush` writes them out."""

    def __init__(self, level: str = "default") -> None:
        self.level = level_index(level)
        self._lines: list[str] = []
        self._lock = threading.Lock()

    def push_scope(self, name: str, level: str = "default") -> None:
        if level_index(level) <= self.level:
            with self._lock:
                self._lines.append(f"Scope:{name}")

    def pop_scope(self, level: str = "default") -> None:
        if level_index(level) <= self.level:
            with self._lock:
                self._lines.append("End Scope")

    def flush(self, stream: TextIO) -> None:
        with self._lock:
            lines, self._lines = self._lines, []
        if lines:
            stream.write("\n".join(lines) + "\n")
            stream.flush()


class ChromeTracer:
    """Collects per-kernel complete ("X") events for the Chrome trace-event format."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._t0 = time.perf_counter_ns()
        self._pid = os.getpid()
        self._thread_names: dict[int, str] = {}

    def begin(self, site: Any) -> int:
        return time.perf_counter_ns()

    def end(self, site: Any, start: int) -> None:
        stop = time.perf_counter_ns()
        tid = threading.get_ident()
        event = {
            "name": site.name,
            "cat": "kernel",
            "ph": "X",
            "ts": (start - self._t0) / 1000.0,
            "dur": (stop - start) / 1000.0,
            "pid": self._pid,
            "tid": tid,
            "args": {"location": _location_text(site)},
        }
        with self._lock:
            self.events.append(event)
            if tid not in self._thread_names:
                self._thread_names[tid] = threading.current_thread().name

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            meta = [
                {"name": "thread_name", "ph": "M", "pid": self._pid, "tid": tid,
                 "args": {"name": name}}
                for tid, name in self._thread_names.items()
            ]
            return {"traceEvents": meta + list(self.events), "displayTimeUnit": "ns"}

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f)
            f.write("\n")


class Tracer:
    """The hook a program calls per kernel: feeds a ChromeTracer and/or a DebugTracingSink."""

    def __init__(self, chrome: ChromeTracer | None = None, sink: DebugTracingSink | None = None):
        self.chrome = chrome
        self.sink = sink
        self._kernel_scopes = sink is not None and sink.level >= level_index("debug")

    def __bool__(self) -> bool:
        return self.chrome is not None or self._kernel_scopes

    def begin(self, site: Any) -> int:
        if self._kernel_scopes:
            self.sink.push_scope(site.name, "debug")  # type: ignore[union-attr]
        return time.perf_counter_ns()

    def end(self, site: Any, start: int) -> None:
        if self.chrome is not None:
            self.chrome.end(site, start)
        if self._kernel_scopes:
            self.sink.pop_scope("debug")  # type: ignore[union-attr]
