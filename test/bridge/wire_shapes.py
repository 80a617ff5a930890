"""The three request shapes Hermes sends a model (its `api_mode`), for the scripted model server.

Job: read any request into one shape-neutral view (OpenAI chat messages: `system`, `user`,
`assistant` with `tool_calls`, `tool` with `tool_call_id`; the text of each), and write the
script's answer (text, or tool calls) back in the request's own shape: a JSON body, or the
shape's server-sent events when the request asked for a stream.
- `chat_completions`: `POST …/chat/completions`, `choices[].message`, `data:` chunks, `[DONE]`.
- `anthropic_messages`: `POST …/messages`, `system` apart, `tool_use` / `tool_result` blocks;
  events `message_start`, `content_block_start/delta/stop` (`text_delta`, `input_json_delta`),
  `message_delta` (stop reason, usage with `cache_read_input_tokens` and
  `cache_creation_input_tokens`), `message_stop`.
- `codex_responses`: `POST …/responses`, `instructions` apart, `input` items (`message`,
  `function_call`, `function_call_output`, `reasoning`); events `response.created`,
  `response.output_item.added`, `response.output_text.delta`,
  `response.function_call_arguments.delta/done`, `response.output_item.done`,
  `response.completed` (usage with `input_tokens_details.cached_tokens`).
`PromptCache` plays a provider's prompt cache, so usage reports cache reads and writes: explicit
`cache_control` breakpoints for Anthropic, automatic prefix caching (1,024 tokens and up) for
the OpenAI shapes.
Invariant: the view is derived from the body, never the body itself; standard library only.
"""
import hashlib
import json
import time

CHAT, ANTHROPIC, RESPONSES = "chat_completions", "anthropic_messages", "codex_responses"
SHAPES = (CHAT, ANTHROPIC, RESPONSES)
_PATHS = (("/chat/completions", CHAT), ("/messages", ANTHROPIC), ("/responses", RESPONSES))


def shape_of_path(path):
    """The shape a POST path asks for, or None."""
    path = path.split("?", 1)[0].rstrip("/")
    return next((shape for suffix, shape in _PATHS if path.endswith(suffix)), None)


def text_of(content):
    """The text of a content value in any shape: a string, or a list of text-bearing parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content
                       if not isinstance(p, dict) or p.get("type") in (None, "text", "input_text", "output_text"))
    return ""


def _call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# -- requests → the neutral view ----------------------------------------------------------------

def view(shape, body):
    """{"messages": [chat messages, the system prompt first], "tools": [tool names]}."""
    messages = {CHAT: _chat_view, ANTHROPIC: _anthropic_view, RESPONSES: _responses_view}[shape](body)
    tools = [(t.get("function") or {}).get("name") if shape == CHAT else t.get("name") for t in body.get("tools") or []]
    return {"messages": messages, "tools": [t for t in tools if t]}


def _chat_view(body):
    out = []
    for m in body.get("messages") or []:
        msg = {"role": m.get("role"), "content": text_of(m.get("content")) if m.get("content") is not None else None}
        if m.get("tool_calls"):
            msg["tool_calls"] = [_call(c.get("id"), (c.get("function") or {}).get("name"), (c.get("function") or {}).get("arguments"))
                                 for c in m["tool_calls"]]
        if m.get("tool_call_id") is not None:
            msg["tool_call_id"] = m["tool_call_id"]
        out.append(msg)
    return out


def _anthropic_view(body):
    out = [{"role": "system", "content": text_of(body["system"])}] if body.get("system") else []
    for m in body.get("messages") or []:
        content = m.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content if isinstance(content, str) else ""}]
        if m.get("role") == "assistant":
            calls = [_call(b.get("id"), b.get("name"), json.dumps(b.get("input") or {})) for b in blocks if b.get("type") == "tool_use"]
            msg = {"role": "assistant", "content": "".join(b.get("text", "") for b in blocks if b.get("type") == "text") or None}
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
            continue
        # A user message: its tool_result blocks are the results of the calls before it, in order.
        texts = []
        for b in blocks:
            if b.get("type") == "tool_result":
                out.append({"role": "tool", "tool_call_id": b.get("tool_use_id"), "content": text_of(b.get("content"))})
            elif b.get("type") == "text":
                texts.append(b.get("text", ""))
        if texts:
            out.append({"role": "user", "content": "\n".join(texts)})
    return out


def _responses_view(body):
    out = [{"role": "system", "content": body["instructions"]}] if body.get("instructions") else []
    items = body.get("input")
    for item in [{"role": "user", "content": items}] if isinstance(items, str) else items or []:
        kind = item.get("type")
        if kind == "function_call":
            last = out[-1] if out else None
            if not (last and last["role"] == "assistant"):
                last = {"role": "assistant", "content": None}
                out.append(last)
            last.setdefault("tool_calls", []).append(_call(item.get("call_id"), item.get("name"), item.get("arguments")))
        elif kind == "function_call_output":
            out.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": text_of(item.get("output"))})
        elif kind in (None, "message") and item.get("role") in ("user", "assistant", "system", "developer"):
            role = "system" if item["role"] == "developer" else item["role"]
            out.append({"role": role, "content": text_of(item.get("content")) or None})
        # reasoning items carry no text the script reads
    return out


# -- the provider's prompt cache ----------------------------------------------------------------

def _unmarked(block):
    if isinstance(block, dict):
        return {k: _unmarked(v) for k, v in block.items() if k != "cache_control"}
    if isinstance(block, list):
        return [_unmarked(b) for b in block]
    return block


def _blocks(shape, body):
    """The request as the provider's cache sees it: [(serialised block, is a breakpoint)], in
    prefix order (tools, system, messages)."""
    out = []

    def add(block, marked=False):
        # A marker is no part of what is cached (a provider keys its cache on the content): a block
        # marked in one request and not in the next is the same block.
        out.append((json.dumps(_unmarked(block), sort_keys=True), marked))

    for tool in body.get("tools") or []:
        add(tool, isinstance(tool, dict) and "cache_control" in tool)
    if shape == ANTHROPIC:
        system = body.get("system")
        for b in system if isinstance(system, list) else ([{"type": "text", "text": system}] if system else []):
            add(b, isinstance(b, dict) and "cache_control" in b)
        for m in body.get("messages") or []:
            content = m.get("content")
            # A string is one text block (as the provider reads it): Hermes sends a message as a
            # string, and as a list of blocks once it carries a marker.
            for b in content if isinstance(content, list) else [{"type": "text", "text": content}]:
                add([m.get("role"), b], isinstance(b, dict) and "cache_control" in b)
    elif shape == RESPONSES:
        add(body.get("instructions"))
        items = body.get("input")
        for item in [items] if isinstance(items, str) else items or []:
            add(item)
    else:
        for m in body.get("messages") or []:
            add(m)
    return out


class PromptCache:
    """A provider's prefix cache, by serialised blocks: a later request that begins with a prefix
    an earlier one wrote reads it. Anthropic writes the prefix ending at each `cache_control`
    breakpoint; the OpenAI shapes cache every prefix of 1,024 tokens and more on their own."""

    AUTOMATIC_MIN_TOKENS = 1024

    def __init__(self):
        self.written = set()

    def split(self, shape, body, prompt_tokens):
        """(cache read, cache write) tokens of a request whose whole prompt is `prompt_tokens`."""
        blocks = _blocks(shape, body)
        total = sum(len(b) for b, _ in blocks) or 1
        digest, size, read, last_mark, prefixes = hashlib.sha256(), 0, 0, 0, []
        for block, marked in blocks:
            digest.update(block.encode("utf-8", "surrogatepass"))
            size += len(block)
            key = digest.hexdigest()
            prefixes.append((key, size, marked))
            if key in self.written:
                read = size
            if marked:
                last_mark = size
        tokens = lambda chars: prompt_tokens * chars // total  # noqa: E731  (the prompt's tokens, shared by size)
        if shape == ANTHROPIC:
            self.written.update(key for key, _, marked in prefixes if marked)
            return tokens(read), max(0, tokens(last_mark) - tokens(read))
        self.written.update(key for key, size, _ in prefixes if tokens(size) >= self.AUTOMATIC_MIN_TOKENS)
        return tokens(read), 0


# -- the answer → the request's shape -----------------------------------------------------------

def answer_body(shape, model, answer, usage):
    """The non-streaming response. `answer`: {"text": str | None, "calls": [(id, name, args)]};
    `usage`: {"prompt", "completion", "cache_read", "cache_write"}."""
    calls, text = answer["calls"], answer["text"]
    if shape == ANTHROPIC:
        content = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls] or [{"type": "text", "text": text}]
        return {"id": "msg_%d" % int(time.time() * 1000), "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
                "usage": _anthropic_usage(usage)}
    if shape == RESPONSES:
        return dict(_response_head(model, "completed"), output=_response_items(answer), usage=_responses_usage(usage))
    message = {"role": "assistant", "content": None if calls else text}
    if calls:
        message["tool_calls"] = [_call(i, n, json.dumps(a)) for i, n, a in calls]
    return {"id": "c", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": _chat_usage(usage)}


def answer_events(shape, model, answer, usage):
    """The streaming response: the SSE frames (bytes) to write, in order."""
    return {CHAT: _chat_events, ANTHROPIC: _anthropic_events, RESPONSES: _responses_events}[shape](model, answer, usage)


def _sse(data, event=None):
    head = b"event: " + event.encode() + b"\n" if event else b""
    return head + b"data: " + (data if isinstance(data, bytes) else json.dumps(data).encode()) + b"\n\n"


def _chat_usage(u):
    out = {"prompt_tokens": u["prompt"], "completion_tokens": u["completion"], "total_tokens": u["prompt"] + u["completion"]}
    if u["cache_read"]:
        out["prompt_tokens_details"] = {"cached_tokens": u["cache_read"]}
    return out


def _chat_events(model, answer, usage):
    base = {"id": "c", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    chunk = lambda choices, **extra: _sse(dict(base, choices=choices, **extra))  # noqa: E731
    frames = []
    if answer["calls"]:
        for n, (i, name, args) in enumerate(answer["calls"]):
            delta = {"tool_calls": [{"index": n, "id": i, "type": "function", "function": {"name": name, "arguments": ""}}]}
            frames.append(chunk([{"index": 0, "delta": dict(delta, role="assistant") if n == 0 else delta}]))
            frames.append(chunk([{"index": 0, "delta": {"tool_calls": [{"index": n, "function": {"arguments": json.dumps(args)}}]}}]))
        frames.append(chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]))
    else:
        frames.append(chunk([{"index": 0, "delta": {"role": "assistant", "content": answer["text"]}}]))
        frames.append(chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}]))
    frames.append(chunk([], usage=_chat_usage(usage)))
    return frames + [_sse(b"[DONE]")]


def _anthropic_usage(u):
    return {"input_tokens": u["prompt"] - u["cache_read"] - u["cache_write"], "output_tokens": u["completion"],
            "cache_read_input_tokens": u["cache_read"], "cache_creation_input_tokens": u["cache_write"]}


def _anthropic_events(model, answer, usage):
    full = _anthropic_usage(usage)
    start = {"id": "msg_%d" % int(time.time() * 1000), "type": "message", "role": "assistant", "model": model, "content": [],
             "stop_reason": None, "stop_sequence": None, "usage": dict(full, output_tokens=1)}
    frames = [_sse({"type": "message_start", "message": start}, "message_start")]
    blocks = ([({"type": "tool_use", "id": i, "name": n, "input": {}}, {"type": "input_json_delta", "partial_json": json.dumps(a)})
               for i, n, a in answer["calls"]]
              or [({"type": "text", "text": ""}, {"type": "text_delta", "text": answer["text"]})])
    for index, (block, delta) in enumerate(blocks):
        frames.append(_sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start"))
        if delta["type"] == "input_json_delta":  # split as a provider does, so the client must join the pieces
            whole = delta["partial_json"]
            pieces = [whole[:len(whole) // 2], whole[len(whole) // 2:]] if len(whole) > 1 else [whole]
            frames += [_sse({"type": "content_block_delta", "index": index, "delta": dict(delta, partial_json=p)}, "content_block_delta") for p in pieces]
        else:
            frames.append(_sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"))
        frames.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    frames.append(_sse({"type": "message_delta", "delta": {"stop_reason": "tool_use" if answer["calls"] else "end_turn", "stop_sequence": None},
                        "usage": full}, "message_delta"))
    return frames + [_sse({"type": "message_stop"}, "message_stop")]


def _responses_usage(u):
    return {"input_tokens": u["prompt"], "input_tokens_details": {"cached_tokens": u["cache_read"]},
            "output_tokens": u["completion"], "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": u["prompt"] + u["completion"]}


def _response_head(model, status):
    return {"id": "resp_%d" % int(time.time() * 1000), "object": "response", "created_at": int(time.time()), "status": status,
            "model": model, "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "usage": None,
            "error": None, "incomplete_details": None}


def _response_items(answer):
    if answer["calls"]:
        return [{"type": "function_call", "id": "fc_" + i.split("_", 1)[-1], "call_id": i, "name": n, "arguments": json.dumps(a),
                 "status": "completed"} for i, n, a in answer["calls"]]
    return [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": answer["text"], "annotations": []}]}]


def _responses_events(model, answer, usage):
    seq = iter(range(10 ** 6))
    frame = lambda kind, **fields: _sse(dict(type=kind, sequence_number=next(seq), **fields), kind)  # noqa: E731
    head = _response_head(model, "in_progress")
    frames = [frame("response.created", response=head), frame("response.in_progress", response=head)]
    items = _response_items(answer)
    for n, item in enumerate(items):
        if item["type"] == "function_call":
            frames.append(frame("response.output_item.added", output_index=n, item=dict(item, arguments="", status="in_progress")))
            whole = item["arguments"]
            for piece in (whole[:len(whole) // 2], whole[len(whole) // 2:]):
                frames.append(frame("response.function_call_arguments.delta", item_id=item["id"], output_index=n, delta=piece))
            frames.append(frame("response.function_call_arguments.done", item_id=item["id"], output_index=n, name=item["name"], arguments=whole))
        else:
            text = item["content"][0]["text"]
            frames.append(frame("response.output_item.added", output_index=n, item=dict(item, content=[], status="in_progress")))
            part = {"type": "output_text", "text": "", "annotations": []}
            frames.append(frame("response.content_part.added", item_id=item["id"], output_index=n, content_index=0, part=part))
            frames.append(frame("response.output_text.delta", item_id=item["id"], output_index=n, content_index=0, delta=text))
            frames.append(frame("response.output_text.done", item_id=item["id"], output_index=n, content_index=0, text=text))
            frames.append(frame("response.content_part.done", item_id=item["id"], output_index=n, content_index=0, part=dict(part, text=text)))
        frames.append(frame("response.output_item.done", output_index=n, item=item))
    done = dict(head, status="completed", output=items, usage=_responses_usage(usage))
    return frames + [frame("response.completed", response=done)]
