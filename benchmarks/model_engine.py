"""The lab's model engine against the in-app model, on the same questions (issue 29).

Each question that expects an answer goes through Lantern's answerer twice, over the same retriever:
once with the in-app model (:class:`~app.answer.llm.LlamaChatModel`) and once with the engine at
``--url`` (:class:`~app.answer.remote.RemoteChatModel`, the in-app model as its fallback and tokenizer),
both at temperature 0. Reports, per side: answered share (a checked sentence shown), reply holds an expected phrase
(``must_contain_any``), sentences dropped by the check, time to the first verified sentence and to the
end (ms, median and p95), and how many replies are identical (state and text). A benchmark, not a test.

With ``--serve GGUF`` it starts ``python -m llama_cpp.server`` on 127.0.0.1 itself (llama-cpp-python's
server; its extra's packages may come from ``--server-path``, a folder put first on its PYTHONPATH) and
stops it at the end.

usage: python benchmarks/model_engine.py BUNDLE QUESTIONS.jsonl [--questions 10] [--start 0]
           (--url http://127.0.0.1:8080 | --serve models/Qwen2.5-Coder-0.5B-Instruct.Q4_K_M.gguf)
           [--model GGUF] [--threads 1] [--server-path DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from app.answer.answerer import Assistant
from app.answer.llm import N_CTX, PREFILL_BATCH, LlamaChatModel
from app.answer.remote import Engine, RemoteChatModel
from app.bundle.reader import BundleReader
from app.config import default_chat_model
from app.embedding import FastEmbedder
from app.retrieval.retriever import Retriever


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 1)


def start_llama_server(gguf: Path, threads: int, server_path: str) -> tuple[subprocess.Popen, str]:
    """``python -m llama_cpp.server`` on a free loopback port with the in-app model's settings
    (context 4,096 tokens, seed 1234, batch 128); returns the process and its URL once it answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ)
    if server_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (server_path, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
           "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", str(threads), "--seed", "1234",
           "--n_batch", str(PREFILL_BATCH * 4), "--verbose", "false"]
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"llama_cpp.server exited: {process.stderr.read().decode()[-2000:] if process.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("llama_cpp.server did not start within 120 s")


def run_side(assistant: Assistant, questions: list[dict]) -> list[dict]:
    rows = []
    for q in questions:
        answer = assistant.answer(q["question"])
        first = answer.timings_ms.get("first_verified")
        text = answer.text.lower()
        rows.append({"id": q["id"], "state": answer.state, "text": answer.text, "model": answer.model,
                     "engine": answer.engine, "degraded": list(answer.degraded),
                     "holds": any(p.lower() in text for p in q.get("must_contain_any", [])),
                     "shown": answer.checks.get("shown", 0),
                     "dropped": answer.checks.get("sentences", 0) - answer.checks.get("shown", 0),
                     "first_verified_ms": first, "total_ms": answer.timings_ms.get("total")})
        print(f"  {q['id']}: {answer.state} {answer.engine} first_verified={first}", file=sys.stderr)
    return rows


def summary(rows: list[dict]) -> dict:
    firsts = [r["first_verified_ms"] for r in rows if r["first_verified_ms"] is not None]
    totals = [r["total_ms"] for r in rows if r["total_ms"] is not None]
    return {"questions": len(rows), "answered": sum(r["state"] == "answered" for r in rows),
            "holds_expected": sum(r["holds"] for r in rows), "sentences_shown": sum(r["shown"] for r in rows),
            "sentences_dropped": sum(r["dropped"] for r in rows),
            "first_verified_ms_p50": round(statistics.median(firsts), 1) if firsts else None,
            "first_verified_ms_p95": _pct(firsts, 0.95),
            "total_ms_p50": round(statistics.median(totals), 1) if totals else None, "total_ms_p95": _pct(totals, 0.95)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--questions", dest="count", type=int, default=10)
    parser.add_argument("--start", type=int, default=0, help="skip this many answerable questions first")
    parser.add_argument("--url", default="", help="a running engine")
    parser.add_argument("--serve", type=Path, help="start llama_cpp.server on loopback with this GGUF")
    parser.add_argument("--server-path", default="", help="folder with the server extra's packages")
    parser.add_argument("--model", type=Path, help="the in-app GGUF (default: the settings' or manifest's)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    questions = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [q for q in questions if q.get("expect") == "answer"][args.start:args.start + args.count]
    retriever = Retriever(BundleReader(args.bundle), FastEmbedder(threads=1))
    server = None
    url = args.url
    if args.serve:
        server, url = start_llama_server(args.serve, args.threads, args.server_path)
    try:
        in_app = LlamaChatModel(args.model or default_chat_model(), threads=args.threads)
        print("in-app:", file=sys.stderr)
        local = run_side(Assistant(retriever, in_app), questions)
        print(f"engine {url}:", file=sys.stderr)
        engine = Engine.parse(url, connect_timeout_s=5.0, read_timeout_s=600.0)
        # The in-app model as fallback, as Lantern runs it: its tokenizer fits the same passages into the
        # prompt; a reply it wrote instead of the engine shows as engine "in-app" in the rows.
        far = run_side(Assistant(retriever, RemoteChatModel(engine, in_app)), questions)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    same = sum(a["state"] == b["state"] and a["text"] == b["text"] for a, b in zip(local, far))
    report = {"in_app": summary(local), "engine": summary(far), "identical_replies": same,
              "engine_failed": sum(r["engine"] != engine.label for r in far if r["state"] != "not-covered"),
              "engine_url": url, "engine_model": far[0]["model"] if far else "",
              "differences": [{"id": a["id"], "in_app": a["text"][:300], "engine": b["text"][:300]}
                              for a, b in zip(local, far) if a["text"] != b["text"]]}
    print(json.dumps(report, indent=None if args.json else 2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
