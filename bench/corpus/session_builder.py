"""The replay benchmark's session format, built message by message (stdlib only; used by readers.py).

Job: a tool call in OpenAI form, the text of an Anthropic content value (images become a note),
an ISO 8601 time, and `Builder`, which takes an agent's records in whatever order the source keeps
them and emits assistant turns and their tool results in API order (the format convert.py's
docstring describes).
Invariant: every tool call the builder emits is answered by exactly one tool message, in call
order, before the next assistant message; what it drops is counted in its `stats`.
"""
from __future__ import annotations

import datetime as _dt
import json

IMAGE_NOTE = "[image omitted in conversion]"


def tool_call(call_id: str, name: str, args) -> dict:
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def blocks_text(content) -> str:
    """Text of an Anthropic content value (str or list of blocks); images become a note."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for b in content:
        if not isinstance(b, dict):
            parts.append(str(b))
        elif b.get("type") == "text":
            parts.append(b.get("text", ""))
        elif b.get("type") in ("image", "document"):
            parts.append(IMAGE_NOTE)
        else:
            parts.append(json.dumps(b, ensure_ascii=False))
    return "\n".join(parts)



def iso(epoch: float) -> str:
    return _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc).isoformat().replace("+00:00", "Z")


class Builder:
    """Accumulates assistant turns and their tool results, then emits them in API order.

    An assistant turn is flushed (assistant message, then one tool message per call, in call
    order) when the next turn or a user message starts. Calls the recording never answered are
    removed from the assistant message (counted in ``stats['unanswered_calls']``); results whose
    call is unknown are dropped (``stats['orphan_results']``).
    """

    def __init__(self):
        self.out: list[dict] = []
        self.turn: dict | None = None       # {"key", "text": [], "calls": [], "ts"}
        self.results: dict[str, dict] = {}
        self.stats = {"unanswered_calls": 0, "orphan_results": 0, "images": 0}

    def user(self, text: str, ts: str | None = None, **extra):
        self.flush()
        m = {"role": "user", "content": text}
        if ts:
            m["timestamp"] = ts
        m.update(extra)
        self.out.append(m)

    def system(self, text: str):
        self.flush()
        self.out.append({"role": "system", "content": text})

    def assistant(self, key, text: str | None = None, call: dict | None = None, ts: str | None = None):
        """Add text and/or one tool call to the turn ``key`` (a new key starts a new turn)."""
        if self.turn is None or self.turn["key"] != key or key is None:
            self.flush()
            self.turn = {"key": key, "text": [], "calls": [], "ts": ts}
        if text:
            self.turn["text"].append(text)
        if call:
            self.turn["calls"].append(call)

    def result(self, call_id: str, content: str, ts: str | None = None):
        if self.turn is None or all(c["id"] != call_id for c in self.turn["calls"]):
            self.stats["orphan_results"] += 1
            return
        if call_id in self.results:        # a second answer to the same call: keep the first
            self.stats["orphan_results"] += 1
            return
        self.results[call_id] = {"content": content, "ts": ts}

    def flush(self):
        t = self.turn
        self.turn = None
        if t is None:
            return
        calls = [c for c in t["calls"] if c["id"] in self.results]
        self.stats["unanswered_calls"] += len(t["calls"]) - len(calls)
        if not t["text"] and not calls:
            self.results = {}
            return
        m = {"role": "assistant", "content": "\n".join(t["text"])}
        if calls:
            m["tool_calls"] = calls
        if t["ts"]:
            m["timestamp"] = t["ts"]
        self.out.append(m)
        for c in calls:
            r = self.results[c["id"]]
            tm = {"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"],
                  "content": r["content"]}
            if r["ts"]:
                tm["timestamp"] = r["ts"]
            self.out.append(tm)
        self.results = {}

    def done(self) -> list[dict]:
        self.flush()
        return self.out


def count_images(content) -> int:
    if isinstance(content, list):
        return sum(1 for b in content if isinstance(b, dict) and b.get("type") in ("image", "document"))
    return 0
