#!/usr/bin/env python3
"""The harm suite side by side: HMC against the Python original (v0.3.8), same cases.

Each case (bench/harm-cases.ts: a tool output as an agent received it, the facts that must
survive, a success claim that must not appear) goes through HMC's single-output path
(`hmc filter --jsonl`, built bin) and through the original's single-output strategies
(`apply_strategies_to_tool_output`: short-circuit, code filter, truncation, as its
post_tool_call runs them). A case is harmful when a fact is missing from what the model would
read, or a false claim appears. The original's source comes from HMC_REF_SRC (an extracted copy
of entrepeneur4lyf/hermes-context-manager; nothing of it is in this repository).

    npx tsx bench/harm-cases.ts > /tmp/cases.jsonl
    HMC_REF_SRC=<original source> python3 bench/harm-vs-original.py /tmp/cases.jsonl
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def visible(content):
    """What the model reads: the content, and inside a JSON envelope every string value."""
    out = [content]

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    if content.lstrip().startswith("{"):
        try:
            walk(json.loads(content))
        except ValueError:
            pass
    return "\n".join(out)


def harmful(case, content):
    """A fact lost, a false claim made, or a diagnostic's location kept without its message."""
    seen = visible(content)
    if any(f not in seen for f in case["keep"]) or any(a in seen for a in case["absent"]):
        return True
    if case.get("pairs"):
        message, location = (re.compile(p) for p in case["pairs"])
        kept = set(content.split("\n"))
        last = None
        for line in case["output"].split("\n"):
            if message.search(line):
                last = line
            elif location.search(line) and last is not None and line in kept and last not in kept:
                return True
    return False


def shrunk(case, content):
    """For a should-shrink case: at most its share of the input's length."""
    return len(content) <= int(len(case["output"]) * case["shrink_to"])


def run_hmc(cases):
    lines = "".join(json.dumps({"tool": c["tool"], "args": c["args"], "output": c["output"], "is_error": c["is_error"]}) + "\n" for c in cases)
    out = subprocess.run(["node", str(ROOT / "bin" / "hmc.js"), "filter", "--jsonl"], input=lines, capture_output=True, text=True, check=True).stdout
    return [json.loads(l)["output"] for l in out.splitlines() if l.strip()]


def run_original(cases, src):
    sys.path.insert(0, src)
    from hermes_context_manager.config import load_config
    from hermes_context_manager.engine import apply_strategies_to_tool_output
    from hermes_context_manager.state import SessionState, ToolRecord
    config = load_config(Path(tempfile.mkdtemp()))
    outs = []
    for i, c in enumerate(cases):
        state = SessionState()
        cid = "call_%d" % i
        state.tool_calls[cid] = ToolRecord(cid, c["tool"], c["args"], "", c["is_error"], 0, 0.0, len(c["output"]) // 4)
        message = {"role": "tool", "tool_call_id": cid, "name": c["tool"], "content": c["output"]}
        try:
            apply_strategies_to_tool_output(message, state, config)
        except Exception as exc:  # the original failing on an input counts as leaving it whole
            print("original failed on %s: %s" % (c["name"], exc), file=sys.stderr)
        outs.append(message["content"] if isinstance(message["content"], str) else c["output"])
    return outs


def main():
    cases = [json.loads(l) for l in Path(sys.argv[1]).read_text().splitlines() if l.strip()]
    src = os.environ.get("HMC_REF_SRC")
    results = {"HMC": run_hmc(cases)}
    if src:
        results["original v0.3.8"] = run_original(cases, src)
    classes = sorted({c["klass"] for c in cases})
    print("%-16s %6s  %s" % ("class", "cases", "  ".join("%-22s" % k for k in results)))
    for k in classes + ["all"]:
        chosen = [i for i, c in enumerate(cases) if k == "all" or c["klass"] == k]
        cells = []
        for name, outs in results.items():
            bad = sum(harmful(cases[i], outs[i]) for i in chosen)
            raw = sum(len(cases[i]["output"]) for i in chosen)
            kept = sum(len(outs[i]) for i in chosen)
            cells.append("%3d harmful, %3.0f%% cut" % (bad, 100 * (1 - kept / raw) if raw else 0))
            if k == "all":
                shrink = [i for i in chosen if cases[i].get("shrink_to")]
                print("%s: %d of %d should-shrink outputs shrunk" % (name, sum(shrunk(cases[i], outs[i]) for i in shrink), len(shrink)))
        print("%-16s %6d  %s" % (k, len(chosen), "  ".join("%-22s" % x for x in cells)))


if __name__ == "__main__":
    main()
