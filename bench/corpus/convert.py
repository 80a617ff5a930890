#!/usr/bin/env python3
"""Convert public agent transcripts into the replay benchmark's session format (stdlib only).

Output format (what ../../../shared/bench/replay.py reads, see shared/corpus/README.md): one JSON
file per session, an array of OpenAI chat messages with roles system / user / assistant / tool.
Assistant messages may carry ``tool_calls: [{id, type: "function", function: {name, arguments}}]``
(``arguments`` is a JSON string); every tool call is answered by exactly one ``tool`` message
(``tool_call_id``, ``name``, string ``content``), in call order, before the next assistant message.
Where the source keeps a time per record, the message gets a ``timestamp`` (ISO 8601, UTC).

One function per source format, in readers.py (each docstring says what is kept, what is changed,
and what the source does not have; session_builder.py builds the messages in API order):

  claude_code_jsonl   Claude Code session log (~/.claude/projects/<dir>/<session>.jsonl)
  claude_code_stream  Claude Code ``claude -p --output-format stream-json`` output
  codex_exec_json     Codex CLI ``codex exec --json`` event stream (thread.started / item.*)
  mini_swe_agent      mini-swe-agent ``*.traj.json`` (trajectory_format mini-swe-agent-1.1)

Usage
  convert.py FORMAT SRC OUT.json [--prompt FILE]      one file (claude_code_jsonl may write
                                                      OUT.json, OUT-part2.json, ... on compaction)
  convert.py build SOURCES.json --mirrors DIR --out DIR
                                                      every session listed in SOURCES.json, read
                                                      from fetched bare repositories under DIR
                                                      (DIR/<owner>+<name>/repo), plus LICENSE
                                                      files and MANIFEST.md
  convert.py check FILE_OR_DIR...                     validate the format, print counts
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from readers import FORMATS, convert_text


# --------------------------------------------------------------------------- checks
def validate(msgs: list[dict]) -> list[str]:
    """Format errors (empty list when the session is well formed)."""
    errs = []
    pending: list[str] = []
    for i, m in enumerate(msgs):
        role = m.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            errs.append(f"{i}: bad role {role!r}")
        if role == "tool":
            if not pending or m.get("tool_call_id") != pending[0]:
                errs.append(f"{i}: tool message out of order ({m.get('tool_call_id')})")
            else:
                pending.pop(0)
            if not isinstance(m.get("content"), str) or not m.get("name"):
                errs.append(f"{i}: tool message needs string content and a name")
            continue
        if pending:
            errs.append(f"{i}: {len(pending)} tool calls unanswered before a {role} message")
            pending = []
        if not isinstance(m.get("content"), str):
            errs.append(f"{i}: content is not a string")
        for c in m.get("tool_calls") or []:
            try:
                json.loads(c["function"]["arguments"])
            except Exception:
                errs.append(f"{i}: arguments not JSON")
            pending.append(c["id"])
    if pending:
        errs.append(f"end: {len(pending)} tool calls unanswered")
    return errs


def counts(msgs: list[dict]) -> dict:
    size = len(json.dumps(msgs, ensure_ascii=False))
    return {
        "messages": len(msgs),
        "model_calls": sum(1 for m in msgs if m["role"] == "assistant"),
        "tool_calls": sum(len(m.get("tool_calls") or []) for m in msgs),
        "user_messages": sum(1 for m in msgs if m["role"] == "user"),
        "chars": size,
    }


# --------------------------------------------------------------------------- build
def _git_show(repo_dir: Path, commit: str, path: str) -> str:
    r = subprocess.run(["git", "-C", str(repo_dir), "show", f"{commit}:{path}"],
                       capture_output=True)
    if r.returncode:
        raise RuntimeError(f"{repo_dir}: {commit}:{path}: {r.stderr.decode(errors='replace').strip()}")
    return r.stdout.decode("utf-8", errors="replace")


def build(sources_file: Path, mirrors: Path, out_dir: Path) -> None:
    spec = json.loads(sources_file.read_text())
    rows = []
    for src in spec["sources"]:
        repo_dir = mirrors / src["repo"].replace("/", "+") / "repo"
        lic_text = _git_show(repo_dir, src["license_commit"], src["license_path"])
        for s in src["sessions"]:
            agent = s.get("agent", src["agent"])
            adir = out_dir / agent
            adir.mkdir(parents=True, exist_ok=True)
            lic_name = "LICENSE-" + src["repo"].replace("/", "+")
            (adir / lic_name).write_text(lic_text)
            text = _git_show(repo_dir, s["commit"], s["path"])
            prompt = _git_show(repo_dir, s["commit"], s["prompt"]) if s.get("prompt") else None
            sessions = convert_text(src["format"], text, prompt)
            stats = getattr(FORMATS[src["format"]], "stats", {})
            keep = s.get("parts")   # 1-based part numbers to keep (claude_code_jsonl splits)
            for k, msgs in enumerate(sessions, 1):
                if keep and k not in keep:
                    continue
                name = s["name"] + (f"-part{k}" if len(sessions) > 1 else "")
                errs = validate(msgs)
                if errs:
                    raise SystemExit(f"{name}: {errs[:5]}")
                (adir / f"{name}.json").write_text(json.dumps(msgs, ensure_ascii=False, indent=1))
                c = counts(msgs)
                rows.append({"agent": agent, "name": name, "repo": src["repo"], "commit": s["commit"],
                             "path": s["path"], "prompt": s.get("prompt"), "license": src["license"],
                             "license_file": f"{agent}/{lic_name}", "format": src["format"],
                             "part": f"{k}/{len(sessions)}", "dropped": stats, **c})
                print(f"{agent}/{name}: {c['model_calls']} calls, {c['tool_calls']} tool calls, "
                      f"{c['chars'] / 1e6:.2f} MB", file=sys.stderr)
    # one directory with every session, for a single replay run
    alld = out_dir / "all"
    alld.mkdir(exist_ok=True)
    for p in alld.glob("*.json"):
        p.unlink()
    for r in rows:
        (alld / f"{r['agent']}--{r['name']}.json").symlink_to(Path("..") / r["agent"] / f"{r['name']}.json")
    (out_dir / "manifest.json").write_text(json.dumps(rows, indent=1))
    _write_manifest_md(out_dir / "MANIFEST.md", rows, spec)


def _write_manifest_md(path: Path, rows: list[dict], spec: dict) -> None:
    lines = ["# Development corpus: real agent sessions", "",
             "Generated by `bench/corpus/convert.py build` (HMC repository); do not edit by hand.",
             "Each session: one JSON file, OpenAI chat messages (see shared/corpus/README.md).",
             "Model calls = assistant messages; size = JSON characters of the converted file.", ""]
    for src in spec["sources"]:
        lines.append(f"- `{src['repo']}` ({src['license']}, licence text: "
                     f"`{src['agent']}/LICENSE-{src['repo'].replace('/', '+')}`): {src['about']}")
    lines += ["", "| agent | session | source repo | commit | path | licence | part | messages | model calls | tool calls | size |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    tot: dict[str, list[int]] = {}
    for r in rows:
        lines.append(f"| {r['agent']} | {r['name']} | {r['repo']} | {r['commit'][:12]} | `{r['path']}` | "
                     f"{r['license']} | {r['part']} | {r['messages']} | {r['model_calls']} | {r['tool_calls']} | "
                     f"{r['chars'] / 1e6:.2f} MB |")
        t = tot.setdefault(r["agent"], [0, 0, 0, 0])
        t[0] += 1
        t[1] += r["model_calls"]
        t[2] += r["tool_calls"]
        t[3] += r["chars"]
    lines += ["", "| agent | sessions | model calls | tool calls | size |", "|---|---|---|---|---|"]
    for a, t in tot.items():
        lines.append(f"| {a} | {t[0]} | {t[1]} | {t[2]} | {t[3] / 1e6:.1f} MB |")
    path.write_text("\n".join(lines) + "\n")


# --------------------------------------------------------------------------- cli
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=[*FORMATS, "build", "check"])
    ap.add_argument("args", nargs="+")
    ap.add_argument("--prompt")
    ap.add_argument("--full-output", action="store_true", help="codex_exec_json: keep whole command outputs")
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--out", default="/work/devcorpus")
    a = ap.parse_args(argv)
    if a.cmd == "build":
        build(Path(a.args[0]), Path(a.mirrors), Path(a.out))
        return 0
    if a.cmd == "check":
        bad = 0
        files = []
        for p in map(Path, a.args):
            files += sorted(p.glob("*.json")) if p.is_dir() else [p]
        for f in files:
            msgs = json.loads(f.read_text())
            errs = validate(msgs)
            bad += bool(errs)
            print(f.name, counts(msgs), "OK" if not errs else errs[:3])
        return 1 if bad else 0
    src, out = Path(a.args[0]), Path(a.args[1])
    prompt = Path(a.prompt).read_text() if a.prompt else None
    sessions = convert_text(a.cmd, src.read_text(encoding="utf-8", errors="replace"), prompt, a.full_output)
    for k, msgs in enumerate(sessions, 1):
        p = out if k == 1 else out.with_name(f"{out.stem}-part{k}{out.suffix}")
        errs = validate(msgs)
        if errs:
            print(f"{p}: {errs[:5]}", file=sys.stderr)
            return 1
        p.write_text(json.dumps(msgs, ensure_ascii=False, indent=1))
        print(p, counts(msgs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
