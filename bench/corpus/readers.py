"""One reader per source format of the development corpus (stdlib only; convert.py's formats):
each turns one source file's text into sessions of the replay benchmark's format, and its
docstring says what is kept, what is changed, and what the source does not have.

  claude_code_jsonl   Claude Code session log (~/.claude/projects/<dir>/<session>.jsonl)
  claude_code_stream  Claude Code ``claude -p --output-format stream-json`` output
  codex_exec_json     Codex CLI ``codex exec --json`` event stream (thread.started / item.*)
  mini_swe_agent      mini-swe-agent ``*.traj.json`` (trajectory_format mini-swe-agent-1.1)

Invariant: a reader never invents content: what the source lacks is left out and counted in the
reader's ``stats``.
"""
from __future__ import annotations

import json

from session_builder import Builder, blocks_text, count_images, iso, tool_call


# Codex CLI sends the model at most 10 KiB / 256 lines of a command's output (head and tail
# kept), while ``codex exec --json`` records the full output; see codex_model_view.
CODEX_MAX_BYTES, CODEX_MAX_LINES = 10 * 1024, 256


def codex_model_view(text: str) -> str:
    """Approximate what Codex CLI put in front of the model for a long command output.

    Codex (codex-rs, 2025) truncated exec output for the model to 10 KiB and 256 lines: the first
    128 and the last 128 lines, the head within 5 KiB and the tail within what is left of the
    10 KiB, joined by a ``[... omitted N of M lines ...]`` marker. This is our reimplementation of
    that rule from its description, not Codex's code; outputs within the limits are unchanged.
    """
    lines = text.splitlines(keepends=True)
    total = len(lines)
    if len(text.encode()) <= CODEX_MAX_BYTES and total <= CODEX_MAX_LINES:
        return text
    half = CODEX_MAX_LINES // 2
    head_lines = lines[:half]
    tail_lines = lines[max(half, total - half):]
    omitted = total - len(head_lines) - len(tail_lines)
    marker = f"\n[... omitted {omitted} of {total} lines ...]\n\n"
    head = "".join(head_lines).encode()[:CODEX_MAX_BYTES // 2].decode(errors="ignore")
    budget = max(0, CODEX_MAX_BYTES - len(head.encode()) - len(marker.encode()))
    tail_b = "".join(tail_lines).encode()
    tail = tail_b[len(tail_b) - budget:].decode(errors="ignore") if budget else ""
    return head + marker + tail


# --------------------------------------------------------------------------- formats
def claude_code_jsonl(lines: list[str]) -> list[list[dict]]:
    """Claude Code session log: ``~/.claude/projects/<encoded-cwd>/<session-uuid>.jsonl``.

    One JSON record per line. Records of type ``user`` / ``assistant`` carry an Anthropic
    Messages API ``message`` (content blocks ``text``, ``thinking``, ``tool_use``,
    ``tool_result``) and a ``timestamp``; the other record types (``progress``, ``system``,
    ``file-history-snapshot``, ``queue-operation``, ``summary``) are bookkeeping and are skipped.
    Claude Code writes one record per content block, so the records of one API response share
    ``message.id``: they become one assistant message (text blocks joined with a newline, every
    ``tool_use`` a tool call with its name and input kept as recorded: Read, Bash, Grep, Edit…).
    ``tool_result`` blocks become tool messages whose content is the recorded text exactly (line
    gutters ``     1→``, ``<system-reminder>`` trailers and all); list-valued results are joined
    with a newline, image blocks replaced by ``[image omitted in conversion]``. Text blocks sent
    by the user (prompts, ``[Request interrupted by user]``, task notifications, compaction
    summaries) become user messages. Records with ``isSidechain: true`` (subagents) are skipped.
    ``thinking`` blocks are dropped (the chat format has no field for them). The log holds no
    system prompt and no tool definitions, so none is emitted.

    A ``system`` record with subtype ``compact_boundary`` marks Claude Code's context compaction:
    from there the model saw only the summary that follows, so the session is split there and a
    list of segments is returned (the second one starts with the compaction summary).
    """
    segments: list[list[dict]] = []
    b = Builder()
    for line in lines:
        if not line.strip():
            continue
        o = json.loads(line)
        t = o.get("type")
        if t == "system" and o.get("subtype") == "compact_boundary":
            seg = b.done()
            if seg:
                segments.append(seg)
            stats = b.stats
            b = Builder()
            b.stats = stats
            continue
        if t not in ("user", "assistant") or o.get("isSidechain"):
            continue
        msg = o.get("message") or {}
        ts = o.get("timestamp")
        content = msg.get("content")
        if t == "assistant":
            key = msg.get("id") or o.get("uuid")
            for blk in content or []:
                bt = blk.get("type")
                if bt == "text":
                    b.assistant(key, text=blk.get("text", ""), ts=ts)
                elif bt == "tool_use":
                    b.assistant(key, call=tool_call(blk["id"], blk["name"], blk.get("input", {})), ts=ts)
            continue
        # user record: tool results and/or text
        if isinstance(content, str):
            b.user(content, ts)
            continue
        texts = []
        for blk in content or []:
            if blk.get("type") == "tool_result":
                b.stats["images"] += count_images(blk.get("content"))
                b.result(blk["tool_use_id"], blocks_text(blk.get("content")), ts)
            else:
                b.stats["images"] += count_images([blk])
                texts.append(blocks_text([blk]))
        if texts:
            b.user("\n".join(texts), ts)
    seg = b.done()
    if seg:
        segments.append(seg)
    claude_code_jsonl.stats = b.stats
    return segments


def claude_code_stream(lines: list[str], prompt: str | None = None) -> list[dict]:
    """Claude Code headless output: ``claude -p --output-format stream-json --verbose``.

    One JSON event per line: ``system``/``init`` (tools, model), ``assistant`` events (an
    Anthropic ``message`` with one content block each), ``user`` events carrying ``tool_result``
    blocks, and a final ``result``. Events with a non-null ``parent_tool_use_id`` belong to a
    subagent (Task tool) and are skipped. Consecutive assistant events of one API response share
    ``message.id`` and become one assistant message; where the ids were redacted in the source
    (``[REDACTED…]``), consecutive assistant events with no tool result between them are taken as
    one response. Tool calls, tool names and result text are kept exactly as recorded (same rules
    as ``claude_code_jsonl``). The stream does not echo the prompt: pass the prompt file the
    workflow recorded beside the log (``--prompt``) and it becomes the first user message. No
    timestamps, no system prompt in the source.
    """
    b = Builder()
    if prompt is not None:
        b.user(prompt)
    turn_no = 0
    last_kind = None
    for line in lines:
        if not line.strip():
            continue
        try:
            o = json.loads(line)
        except json.JSONDecodeError:
            continue
        t = o.get("type")
        if t not in ("user", "assistant") or o.get("parent_tool_use_id"):
            continue
        msg = o.get("message") or {}
        content = msg.get("content")
        if t == "assistant":
            mid = msg.get("id")
            if not mid or str(mid).startswith("[REDACTED"):
                if last_kind != "assistant":
                    turn_no += 1
                mid = f"turn-{turn_no}"
            for blk in content or []:
                if blk.get("type") == "text":
                    b.assistant(mid, text=blk.get("text", ""))
                elif blk.get("type") == "tool_use":
                    b.assistant(mid, call=tool_call(blk["id"], blk["name"], blk.get("input", {})))
            last_kind = "assistant"
            continue
        last_kind = "user"
        if isinstance(content, str):
            b.user(content)
            continue
        texts = []
        for blk in content or []:
            if blk.get("type") == "tool_result":
                b.stats["images"] += count_images(blk.get("content"))
                b.result(blk["tool_use_id"], blocks_text(blk.get("content")))
            else:
                texts.append(blocks_text([blk]))
        if texts:
            b.user("\n".join(texts))
    out = b.done()
    claude_code_stream.stats = b.stats
    return out


def codex_exec_json(lines: list[str], prompt: str | None = None, model_view: bool = True) -> list[dict]:
    """Codex CLI non-interactive event stream: ``codex exec --json`` (CLI 0.4x–0.5x).

    One JSON event per line: ``thread.started``, ``turn.started``, ``item.started`` /
    ``item.updated`` / ``item.completed``, ``turn.completed``. Only completed items are used:
    ``command_execution`` (the model's ``shell`` tool call and its result) becomes an assistant
    message with one tool call named ``shell``, arguments ``{"command": <command as recorded,
    e.g. "bash -lc 'ls src'">}``, answered by a tool message whose content is the recorded
    ``aggregated_output`` (the stream keeps the exit code apart; it is not added to the text).
    The stream records the full output, but Codex showed the model at most 10 KiB / 256 lines of
    it: by default the output is cut the same way (``codex_model_view``); ``model_view=False``
    (``--full-output``) keeps the recorded text whole. ``file_change`` (the model's ``apply_patch`` call) becomes a tool call named
    ``apply_patch`` whose arguments are the recorded ``changes`` list: the stream does not keep
    the patch text, so these arguments are much shorter than what the model wrote, and the tool
    message is a one-line-per-file rendering of the recorded changes (``update path``).
    ``agent_message`` text is attached to the next tool call's assistant message (Codex sends a
    preamble and the call in one response), or ends the session as a plain assistant message.
    ``reasoning`` and ``todo_list`` items are dropped. Codex ran one tool call per model call
    here, so each tool call is one model call. The stream does not echo the prompt: pass the
    prompt file recorded beside the log (``--prompt``). No timestamps, no system prompt.
    """
    b = Builder()
    if prompt is not None:
        b.user(prompt)
    pending: list[str] = []
    n = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            o = json.loads(line)
        except json.JSONDecodeError:
            continue
        if o.get("type") != "item.completed":
            continue
        it = o.get("item") or {}
        kind = it.get("type")
        if kind == "agent_message":
            pending.append(it.get("text", ""))
            continue
        if kind == "command_execution":
            name, args, out = "shell", {"command": it.get("command", "")}, it.get("aggregated_output") or ""
            if model_view:
                out = codex_model_view(out)
        elif kind == "file_change":
            changes = it.get("changes") or []
            name, args = "apply_patch", {"changes": changes}
            out = "\n".join(f"{c.get('kind', '?')} {c.get('path', '')}" for c in changes)
        elif kind in ("mcp_tool_call", "web_search"):
            name, args, out = kind, {k: v for k, v in it.items() if k not in ("id", "type", "status", "result")}, \
                json.dumps(it.get("result"), ensure_ascii=False)
        else:
            continue
        n += 1
        call_id = f"codex_{it.get('id') or n}"
        b.assistant(call_id, text="\n".join(pending), call=tool_call(call_id, name, args))
        pending = []
        b.result(call_id, out)
        b.flush()
    if pending:
        b.assistant(None, text="\n".join(pending))
    out = b.done()
    codex_exec_json.stats = b.stats
    return out


def mini_swe_agent(obj: dict) -> list[dict]:
    """mini-swe-agent trajectory: ``<instance>.traj.json`` with ``trajectory_format``
    ``mini-swe-agent-1.1`` (tool-calling model: assistant messages carry OpenAI ``tool_calls``
    for the ``bash`` tool, observations are ``tool`` messages).

    The recorded ``messages`` are already OpenAI chat messages: role, content, tool_calls and
    tool_call_id are kept as recorded (provider fields such as ``extra``, ``index``,
    ``function_call`` are dropped); tool messages get ``name`` from the call they answer.
    ``extra.timestamp`` (epoch seconds), where present, becomes ``timestamp``. The final
    ``{"role": "exit"}`` record holds the submission, i.e. the output of the last (submit)
    command: it becomes the tool message answering that last call when the trajectory has none.
    """
    msgs = obj["messages"]
    out: list[dict] = []
    names: dict[str, str] = {}
    open_calls: list[str] = []
    for m in msgs:
        role = m.get("role")
        ts = (m.get("extra") or {}).get("timestamp")
        if role == "exit":
            if open_calls:
                for cid in open_calls:
                    out.append({"role": "tool", "tool_call_id": cid, "name": names[cid],
                                "content": m.get("content") or ""})
                open_calls = []
            continue
        content = m.get("content")
        if isinstance(content, list):
            content = blocks_text(content)
        n = {"role": role, "content": content if content is not None else ""}
        if role == "assistant" and m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                f = c.get("function") or {}
                calls.append(tool_call(c["id"], f.get("name", "bash"), f.get("arguments", "{}")))
                names[c["id"]] = f.get("name", "bash")
            n["tool_calls"] = calls
            open_calls = [c["id"] for c in calls]
        if role == "tool":
            cid = m.get("tool_call_id")
            n["tool_call_id"] = cid
            n["name"] = names.get(cid, "bash")
            if cid in open_calls:
                open_calls.remove(cid)
        if isinstance(ts, (int, float)):
            n["timestamp"] = iso(ts)
        out.append(n)
    mini_swe_agent.stats = {"unanswered_calls": len(open_calls)}
    return out


FORMATS = {
    "claude_code_jsonl": claude_code_jsonl,
    "claude_code_stream": claude_code_stream,
    "codex_exec_json": codex_exec_json,
    "mini_swe_agent": mini_swe_agent,
}


def convert_text(fmt: str, text: str, prompt: str | None = None, full_output: bool = False) -> list[list[dict]]:
    """Convert one source file's text; always returns a list of sessions (segments)."""
    if fmt == "claude_code_jsonl":
        return claude_code_jsonl(text.splitlines())
    if fmt == "claude_code_stream":
        return [claude_code_stream(text.splitlines(), prompt)]
    if fmt == "codex_exec_json":
        return [codex_exec_json(text.splitlines(), prompt, model_view=not full_output)]
    if fmt == "mini_swe_agent":
        return [mini_swe_agent(json.loads(text))]
    raise SystemExit(f"unknown format {fmt}")
