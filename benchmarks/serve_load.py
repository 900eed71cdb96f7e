"""Load on ``lantern serve``, on loopback only: many students asking at once (issue 29).

Starts the server in a child process on 127.0.0.1 (a free port), then ``--students`` simulated
students (default 30) each ask ``--questions`` questions (default 10) one after another, all students
at once, through ``POST /api/ask`` (server-sent events). Each student connects from its own loopback
address (127.0.0.2, 127.0.0.3, …), so the per-device rate limit applies to each as it would on a lab's
network. Reports, for the asks: time to the evidence event (the passages on screen) and to the end of
the stream, p50/p95/max in ms; errors (HTTP statuses other than 200, error events, broken
connections; target 0); the server's RSS (MB) when ready, at the end and its peak; and the line for
the model (how many asks waited, the longest line seen, how many got the passages alone).

By default the server runs search-only (``lantern serve --search-only``: retrieval with the real
embedding model, then the extractive answer); ``--in-app-model`` serves with the in-app chat model and
``--model-url URL`` with the lab's model engine at URL (one question at a time goes to the model, as in a lab).
``--model-seconds S`` runs instead a server whose chat
model is a stand-in that takes S seconds per answer (the line for the model is then what is
measured, not the model); ``--queue N`` sets how many may wait. A benchmark, not a test: nothing is
asserted. Every request has a timeout (``--timeout`` seconds) and the run as a whole is bounded.

usage: python benchmarks/serve_load.py BUNDLE [--students 30] [--questions 10] [--questions-file Q.jsonl]
                                       [--think 0] [--keyword-only] [--model-seconds 0] [--queue 8]
                                       [--timeout 120] [--json]
e.g.   .venv/bin/python benchmarks/serve_load.py corpus_bundle/esp32-starter.sqlite \\
           --questions-file tests/data/esp32-starter.eval.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FALLBACK_QUESTIONS = ["How do I make the LED blink?", "Why does my OLED display stay blank?",
                      "Which pins does I2C use?", "How do I connect to Wi-Fi?", "What does ledcAttach do?"]


def load_questions(path: Path | None) -> list[str]:
    if path is None:
        return FALLBACK_QUESTIONS
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["question"] for r in rows if r.get("question")] or FALLBACK_QUESTIONS


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))], 1)


def rss_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (peak) of process ``pid`` in MB (Linux)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def note(seen: dict, event: str, data: dict, now: float) -> None:
    """Record one event of an ask arriving ``now`` ms after it was sent."""
    if event in ("evidence", "done") and seen["evidence_ms"] is None:
        seen["evidence_ms"] = now  # a not-covered or declined answer has no evidence event: its done is
    if event == "sentence" and seen["first_sentence_ms"] is None:
        seen["first_sentence_ms"] = now
    if event == "queue":
        seen["queue"].append(data["ahead"])
    seen["busy"] = seen["busy"] or event == "busy"
    if event == "error":
        seen["error"] = data["message"]
    if event == "done":
        seen["done_ms"], seen["state"] = now, data["answer"]["state"]


async def one_ask(client, course: str, question: str, timeout: float) -> dict:
    """One ask as a browser sends it; the times (ms) at which its events arrived."""
    started = time.perf_counter()
    seen: dict = {"status": None, "evidence_ms": None, "first_sentence_ms": None, "done_ms": None,
                  "queue": [], "busy": False, "error": None, "state": None}
    try:
        async with client.stream("POST", "/api/ask", json={"course": course, "question": question},
                                 timeout=timeout) as response:
            seen["status"] = response.status_code
            if response.status_code != 200:
                await response.aread()
                return seen
            event = ""
            async for line in response.aiter_lines():
                now = round((time.perf_counter() - started) * 1000, 1)
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    note(seen, event, json.loads(line[6:]), now)
    except Exception as exc:  # noqa: BLE001 - a benchmark counts every failure
        seen["error"] = f"{exc.__class__.__name__}: {exc}"
    return seen


async def student(index: int, base_url: str, course: str, questions: list[str], timeout: float,
                  think: float = 0.0) -> list[dict]:
    """One student's asks in turn; with ``think`` seconds, a pause of 0.5 to 1.5 times that before
    each question (the first included, so students do not all start at the same instant)."""
    import httpx

    rng = random.Random(index)
    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.0.{2 + index}")
    out = []
    async with httpx.AsyncClient(base_url=base_url, transport=transport) as client:
        for question in questions:
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            out.append(await one_ask(client, course, question, timeout))
    return out


async def run_load(base_url: str, students: int, questions: list[str], per_student: int, timeout: float,
                   think: float = 0.0) -> dict:
    """Every student at once; each asks ``per_student`` questions in turn. The asks' outcomes and times."""
    import httpx

    async with httpx.AsyncClient(base_url=base_url) as client:
        course = (await client.get("/api/courses")).json()["default"]
    asked = [[questions[(i * per_student + j) % len(questions)] for j in range(per_student)] for i in range(students)]
    started = time.perf_counter()
    results = await asyncio.gather(*(student(i, base_url, course, asked[i], timeout, think) for i in range(students)))
    asks = [a for r in results for a in r]
    return summarise(asks, time.perf_counter() - started)


def summarise(asks: list[dict], seconds: float) -> dict:
    statuses: dict[str, int] = {}
    states: dict[str, int] = {}
    for a in asks:
        statuses[str(a["status"])] = statuses.get(str(a["status"]), 0) + 1
        if a["state"]:
            states[a["state"]] = states.get(a["state"], 0) + 1
    errors = [a for a in asks if a["status"] != 200 or a["error"] or a["done_ms"] is None]

    def times(key: str) -> dict:
        values = [a[key] for a in asks if a[key] is not None]
        return {"p50": percentile(values, 50), "p95": percentile(values, 95), "max": percentile(values, 100),
                "n": len(values)}

    waited = [a for a in asks if a["queue"]]
    return {"asks": len(asks), "seconds": round(seconds, 1), "asks_per_s": round(len(asks) / seconds, 1),
            "statuses": statuses, "states": states, "errors": len(errors),
            "error_examples": sorted({str(a["error"] or a["status"]) for a in errors})[:5],
            "evidence_ms": times("evidence_ms"), "first_sentence_ms": times("first_sentence_ms"),
            "done_ms": times("done_ms"),
            "queue": {"waited": len(waited), "longest_line_ahead": max((max(a["queue"]) for a in waited), default=0),
                      "passages_alone_busy": sum(1 for a in asks if a["busy"])}}


def mode_name(args: argparse.Namespace) -> str:
    """How the measured server answered, in words for the report."""
    if args.model_seconds:
        return f"stand-in model, {args.model_seconds} s an answer, queue {args.queue}"
    if args.model_url:
        return f"model engine {args.model_url}, queue {args.queue}"
    mode = f"in-app model, queue {args.queue}" if args.in_app_model else "search-only"
    return mode + (", keyword-only" if args.keyword_only else "")


def start_server(args: argparse.Namespace) -> tuple[subprocess.Popen, str]:
    """The server in a child process; its base URL once it listens."""
    if args.model_seconds > 0:
        command = [sys.executable, __file__, str(args.bundle), "--serve-child", "--model-seconds",
                   str(args.model_seconds), "--queue", str(args.queue)]
    else:
        command = [sys.executable, "-m", "app", "serve", "--bundle", str(args.bundle), "--port", "0", "--queue", str(args.queue)]
        if args.model_url:
            command += ["--model-url", args.model_url]
        elif not args.in_app_model:
            command += ["--search-only"]
        command += ["--keyword-only"] if args.keyword_only else []
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    line = child.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not found:
        child.kill()
        sys.exit(f"the server did not start: {line!r}")
    return child, f"http://127.0.0.1:{found.group(1)}"


def serve_child(args: argparse.Namespace) -> int:
    """The server of ``--model-seconds``: the real embedding model, and a stand-in chat model that
    writes one quoted sentence over ``--model-seconds`` seconds."""
    import uvicorn

    from app.assistant import build_assistant, load_embedder
    from app.bundle.reader import BundleReader
    from app.serve.asking import AskRunner
    from app.serve.command import _bind, listening_line
    from app.serve.courses import CourseLibrary, find_courses
    from app.serve.limits import ModelQueue
    from app.serve.web import create_app

    class SlowModel:
        name, n_ctx = "stand-in.gguf", 4096

        def count_tokens(self, text: str) -> int:
            return max(1, len(text) // 4)

        def prompt_tokens(self, messages) -> int:
            return sum(self.count_tokens(m["content"]) + 4 for m in messages)

        def stream(self, messages, max_tokens, should_stop=None):
            words = "The guide answers this in the passage quoted above [1].".split()
            for word in words:
                if should_stop is not None and should_stop():
                    return
                time.sleep(args.model_seconds / len(words))
                yield word + " "

    embedder, model = load_embedder(), SlowModel()
    library = CourseLibrary(find_courses(args.bundle),
                            lambda p: build_assistant(BundleReader(p), embedder=embedder, chat_model=model))
    library.assistant(library.default_id)
    sock = _bind("127.0.0.1", 0)
    app = create_app(library, runner=AskRunner(ModelQueue(args.queue)))
    print(listening_line("127.0.0.1", sock.getsockname()[1], ["benchmark"]), flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--questions", type=int, default=10, help="questions per student")
    parser.add_argument("--questions-file", type=Path)
    parser.add_argument("--model-seconds", type=float, default=0.0)
    parser.add_argument("--queue", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a student reads before each question (default 0: at once, back to back)")
    parser.add_argument("--keyword-only", action="store_true", help="serve without the embedding model")
    parser.add_argument("--in-app-model", action="store_true", help="serve with the in-app chat model (not search-only)")
    parser.add_argument("--model-url", default="", help="serve with this model engine (an OpenAI-compatible URL)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_child:
        return serve_child(args)
    if args.students > 250:
        sys.exit("--students: at most 250 (one loopback address each).")
    child, base_url = start_server(args)
    try:
        ready = rss_mb(child.pid)
        report = asyncio.run(asyncio.wait_for(
            run_load(base_url, args.students, load_questions(args.questions_file), args.questions, args.timeout,
                     args.think),
            timeout=(args.timeout + 1.5 * args.think) * args.questions + 60))
        end = rss_mb(child.pid)
    finally:
        child.terminate()
        child.wait(10)
    report.update({"students": args.students, "questions_each": args.questions, "think_s": args.think,
                   "mode": mode_name(args),
                   "rss_mb": {"ready": ready.get("VmRSS"), "end": end.get("VmRSS"), "peak": end.get("VmHWM")},
                   "load_average_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()})
    print(json.dumps(report, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
