"""Hermes' own conversion of a chat-completions request into its other request shapes, for the fake
Hermes of the bridge tests (fake_host.py), so the bridge's adapters meet the shapes without a real
Hermes. Follows Hermes 0.16.0 / 0.19.0 (docs/hermes.md "Request shapes"):

- `anthropic_messages` (agent/prompt_caching.py `apply_anthropic_cache_control`, native layout;
  agent/anthropic_adapter.py `convert_messages_to_anthropic`): cache markers on the system prompt
  and the last 3 messages first, then `system` apart, `tool_use` blocks with `input` a dict and ids
  sanitised, consecutive `tool_result` blocks in one user message, consecutive same-role messages
  merged, empty texts as placeholders;
- `codex_responses` (agent/codex_responses_adapter.py `_chat_messages_to_responses_input`):
  `instructions`, `input` items, `function_call` / `function_call_output`.
Also `preflight_codex_items`: Hermes' check of every Responses item after the middleware
(`_preflight_codex_input_items`), which raises on an item of an unknown shape.

Invariant: a test helper, standard library only; it mirrors Hermes' rules, never the bridge's code.
"""
import copy
import json
import re

CHAT, ANTHROPIC, RESPONSES = "chat_completions", "anthropic_messages", "codex_responses"
SHAPES = (CHAT, ANTHROPIC, RESPONSES)
MARKER = {"type": "ephemeral"}


def convert(shape, request):
    """`request` (chat completions: `model`, `messages` with the system prompt first, `tools`) as
    Hermes sends it in `shape`."""
    if shape in (None, CHAT):
        return request
    messages = copy.deepcopy(request["messages"])
    if shape == ANTHROPIC:
        return _anthropic(request, _marked(messages))
    return _responses(request, messages)


# -- Anthropic ------------------------------------------------------------------------------------
def _marked(messages):
    """The native layout: the system prompt and the last 3 other messages carry a marker."""
    def mark(msg):
        content = msg.get("content")
        if msg.get("role") == "tool" or not content:
            msg["cache_control"] = dict(MARKER)
        elif isinstance(content, str):
            msg["content"] = [{"type": "text", "text": content, "cache_control": dict(MARKER)}]
        elif isinstance(content, list) and content and isinstance(content[-1], dict):
            content[-1]["cache_control"] = dict(MARKER)
    if messages and messages[0].get("role") == "system":
        mark(messages[0])
    for i in [i for i, m in enumerate(messages) if m.get("role") != "system"][-3:]:
        mark(messages[i])
    return messages


def sanitize(call_id):
    return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id or "") or "tool_0"


def _anthropic(request, messages):
    system, out = None, []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "system":
            system = [p for p in content if isinstance(p, dict)] if isinstance(content, list) else content
        elif role == "assistant":
            blocks = []
            if content:
                blocks += content if isinstance(content, list) else [{"type": "text", "text": str(content)}]
            for tc in m.get("tool_calls") or []:
                try:
                    args = json.loads(tc["function"]["arguments"])
                except ValueError:
                    args = {}
                blocks.append({"type": "tool_use", "id": sanitize(tc.get("id")), "name": tc["function"]["name"], "input": args})
            if isinstance(m.get("cache_control"), dict):
                for b in reversed(blocks):
                    if b.get("type") in ("text", "tool_use"):
                        b.setdefault("cache_control", dict(m["cache_control"]))
                        break
            out.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "(empty)"}]})
        elif role == "tool":
            block = {"type": "tool_result", "tool_use_id": sanitize(m.get("tool_call_id")), "content": content or "(no output)"}
            if isinstance(m.get("cache_control"), dict):
                block["cache_control"] = dict(m["cache_control"])
            last = out[-1] if out else None
            if last and last["role"] == "user" and isinstance(last["content"], list) and last["content"] \
                    and last["content"][0].get("type") == "tool_result":
                last["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        else:
            out.append({"role": "user", "content": content if content else "(empty message)"})
    merged = []
    for m in out:  # _merge_consecutive_roles
        if merged and merged[-1]["role"] == m["role"]:
            a, b = merged[-1]["content"], m["content"]
            if isinstance(a, str) and isinstance(b, str):
                merged[-1]["content"] = a + "\n" + b
            else:
                wrap = lambda c: [{"type": "text", "text": c}] if isinstance(c, str) else c
                merged[-1]["content"] = wrap(a) + wrap(b)
        else:
            merged.append(m)
    tools = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
              "input_schema": t["function"].get("parameters") or {}} for t in request.get("tools") or []]
    return {"model": request.get("model"), "messages": merged, "system": system, "tools": tools, "max_tokens": 4096}


# -- Responses ------------------------------------------------------------------------------------
def _responses(request, messages):
    instructions, items = "", []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "system":
            instructions = content
        elif role == "assistant":
            text = content if isinstance(content, str) else ""
            if text.strip():
                items.append({"role": "assistant", "content": text})
            for tc in m.get("tool_calls") or []:
                items.append({"type": "function_call", "call_id": tc["id"], "name": tc["function"]["name"],
                              "arguments": tc["function"]["arguments"].strip() or "{}"})
        elif role == "tool":
            items.append({"type": "function_call_output", "call_id": m.get("tool_call_id"), "output": str(content or "")})
        else:
            items.append({"role": role, "content": content if isinstance(content, str) else str(content)})
    tools = [{"type": "function", "name": t["function"]["name"], "description": t["function"].get("description", ""),
              "strict": False, "parameters": t["function"].get("parameters") or {}} for t in request.get("tools") or []]
    return {"model": request.get("model"), "instructions": instructions, "input": items, "tools": tools,
            "tool_choice": "auto", "parallel_tool_calls": True, "store": False}


_ITEM_KEYS = {"function_call": {"type", "call_id", "name", "arguments"}, "function_call_output": {"type", "call_id", "output"}}


def preflight_codex_items(items):
    """Raises ValueError as Hermes does for an item it cannot rebuild from its known keys; a value
    of the wrong type is an error here too (Hermes would coerce it: a test should see it)."""
    for i, item in enumerate(items):
        kind = item.get("type")
        if kind in _ITEM_KEYS:
            if set(item) - _ITEM_KEYS[kind]:
                raise ValueError("input[%d] has keys Hermes drops: %s" % (i, sorted(set(item) - _ITEM_KEYS[kind])))
            value = item.get("arguments" if kind == "function_call" else "output")
            if not isinstance(value, (str, list)):
                raise ValueError("input[%d] carries a %s" % (i, type(value).__name__))
        elif item.get("role") in ("user", "assistant"):
            if not isinstance(item.get("content"), (str, list)):
                raise ValueError("input[%d] content is a %s" % (i, type(item.get("content")).__name__))
        else:
            raise ValueError("input[%d] has unsupported item shape" % i)
