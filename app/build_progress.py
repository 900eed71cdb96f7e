"""Build progress on stderr for ``lantern build``: files and chunks done, chunks per second, time left.

On a terminal, tqdm bars; otherwise (CI logs, pipes) one plain line per stage every
``interval`` seconds and at the end of the stage, so logs show progress without
carriage-return noise. The builder reports ``(stage, done, total)``: ``chunk`` counts
files, ``reuse`` gives ``(chunks reused, chunks in total)`` once, ``embed`` counts the
chunks that need embedding and ``embed_chars`` their characters, ``embed_blocks`` the answer
blocks that need embedding (app/bundle/block_vectors.py).

Time left is estimated from characters, not chunks: chunks are embedded shortest first
(less padding per batch), so the chunk rate falls as the build goes on, while the cost
per character stays about constant.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

#: The stages shown, each with its label and what it counts.
_UNITS = {"chunk": ("chunk", "files"), "embed": ("embed", "chunks"), "embed_blocks": ("embed answer blocks", "blocks")}


def _fmt_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds >= 60 else f"{seconds} s"


def progress_line(stage: str, unit: str, done: int, total: int, elapsed: float,
                  work_done: float | None = None, work_total: float | None = None) -> str:
    """One progress line, e.g. ``embed: 40/99 chunks, 35.2 chunks/s, about 2 s left``.

    ``elapsed`` is in seconds; the time left is ``elapsed`` scaled by the work still to do,
    measured in ``work_done``/``work_total`` (e.g. characters) when given, else in ``unit``.
    """
    line = f"{stage}: {done}/{total} {unit}"
    if done and elapsed > 0:
        line += f", {done / elapsed:.1f} {unit}/s"
        if done < total:
            w_done, w_total = (work_done, work_total) if work_done and work_total else (done, total)
            line += f", about {_fmt_seconds(elapsed * (w_total - w_done) / w_done)} left"
        else:
            line += f", {_fmt_seconds(elapsed)}"
    return line


class BuildProgress:
    """A ``progress(stage, done, total)`` callback; call :meth:`close` when the build ends."""

    def __init__(self, stream: TextIO | None = None, interval: float = 10.0, tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = interval
        self.chars = (0, 0)
        self._bars: dict = {}
        self._started: dict[str, float] = {}
        self._last_line: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == "embed_chars":
            self.chars = (done, total)
            return
        if stage in ("reuse", "reuse_blocks"):
            if done:
                what = "chunks" if stage == "reuse" else "answer blocks"
                self._print(f"reuse: {done} of {total} {what} keep their embeddings from the previous bundle")
            return
        if stage not in _UNITS or (stage != "chunk" and total == 0):  # everything reused: the reuse line said so
            return
        now = time.perf_counter()
        self._started.setdefault(stage, now)
        label, unit = _UNITS[stage]
        work = self.chars if stage == "embed" else (None, None)
        line = progress_line(label, unit, done, total, now - self._started[stage], *work)
        if self.tty:
            self._bar(stage, done, total, line)
            return
        last = self._last_line.get(stage)
        if done < total and last is not None and now - last < self.interval:
            return
        if done == 0 and last is not None:
            return
        self._last_line[stage] = now
        self._print(line)

    def _bar(self, stage: str, done: int, total: int, line: str) -> None:
        from tqdm import tqdm

        bar = self._bars.get(stage)
        if bar is None:
            bar = self._bars[stage] = tqdm(total=total, file=self.stream, leave=True, dynamic_ncols=True,
                                           bar_format="|{bar:24}| {desc}")
        bar.set_description_str(line, refresh=False)
        bar.update(done - bar.n)
        bar.refresh()

    def _print(self, line: str) -> None:
        if self.tty and self._bars:
            from tqdm import tqdm

            tqdm.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()
