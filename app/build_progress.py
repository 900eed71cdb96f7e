"""Build progress on stderr for ``lantern build``: files and chunks done, chunks per second, time left.

On a terminal, tqdm bars; otherwise (CI logs, pipes) one plain line per stage every
``interval`` seconds and at the end of the stage, so logs show progress without
carriage-return noise. The builder reports ``(stage, done, total)``:
``chunk`` counts files, ``reuse`` gives ``(chunks reused, chunks in total)`` once, and
``embed`` counts the chunks that need embedding.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _fmt_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds >= 60 else f"{seconds} s"


class BuildProgress:
    """A ``progress(stage, done, total)`` callback; call :meth:`close` when the build ends."""

    def __init__(self, stream: TextIO | None = None, interval: float = 10.0, tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = interval
        self.reused = 0
        self.total_chunks = 0
        self._bars: dict = {}
        self._started: dict[str, float] = {}
        self._last_line: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == "reuse":
            self.reused, self.total_chunks = done, total
            if done:
                self._print(f"reuse: {done} of {total} chunks keep their embeddings from the previous bundle")
            return
        if stage not in ("chunk", "embed"):
            return
        now = time.perf_counter()
        self._started.setdefault(stage, now)
        unit = "files" if stage == "chunk" else "chunks"
        if self.tty:
            self._bar(stage, unit, done, total)
            return
        last = self._last_line.get(stage)
        if done < total and last is not None and now - last < self.interval:
            return
        if done == 0 and last is not None:
            return
        self._last_line[stage] = now
        self._print(self.status(stage, unit, done, total, now - self._started[stage]))

    @staticmethod
    def status(stage: str, unit: str, done: int, total: int, elapsed: float) -> str:
        """One progress line, e.g. ``embed: 40/99 chunks, 35.2 chunks/s, about 2 s left``."""
        line = f"{stage}: {done}/{total} {unit}"
        if done and elapsed > 0:
            rate = done / elapsed
            line += f", {rate:.1f} {unit}/s"
            line += f", about {_fmt_seconds((total - done) / rate)} left" if done < total else f", {_fmt_seconds(elapsed)}"
        return line

    def _bar(self, stage: str, unit: str, done: int, total: int) -> None:
        from tqdm import tqdm

        bar = self._bars.get(stage)
        if bar is None:
            desc = "read+chunk" if stage == "chunk" else "embed"
            bar = self._bars[stage] = tqdm(
                total=total, desc=f"{desc:>10}", unit=unit[:-1], file=self.stream, leave=True, dynamic_ncols=True,
                bar_format="{desc}: {n_fmt}/{total_fmt} " + unit + " |{bar}| {rate_fmt} [{elapsed}<{remaining} left]")
        bar.update(done - bar.n)

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
