"""The chat-completions request (`api_mode: chat_completions`; OpenRouter, Nous, custom endpoints):
`messages`, the system prompt first, then one message per message of the conversation, in the
form the sidecar holds them already. A message's text is its `content`, or the one text part
Claude's prompt-cache markers wrap it in (`{"type": "text", "text", "cache_control"}`: the part
stays, with its marker; only its text changes).

Invariant: the request's message dicts are the conversation (no copy is made); an edit writes
`content` (or that part's `text`) and a new `tool_calls` list, never anything inside the lists
Hermes built (they may be shared with its live messages on Hermes without middleware).
"""
from .shape_base import ShapedRequest, listed, one_text


class ChatRequest(ShapedRequest):
    shape = "chat_completions"

    def __init__(self, fields, conversation=None):
        super().__init__()
        items = listed(fields.get("messages") if conversation is None else conversation, "messages")
        offset = 1 if items and items[0].get("role") == "system" else 0
        self.head = items[:offset]
        self.system = items[0].get("content") if offset else None
        self.messages = items[offset:] if offset else items
        tools = fields.get("tools")
        self.tools = tools if isinstance(tools, list) else None
        self.tool_names = tuple((t.get("function") or {}).get("name") for t in tools if isinstance(t, dict)) if self.tools else ()

    def put(self, index, content):
        msg = self.messages[index]
        part = one_text(msg.get("content"), ("text",))
        if part is not None:
            msg["content"] = [dict(part, text=content)]
        else:
            msg["content"] = content
        return True

    def calls(self, index):
        calls = self.messages[index].get("tool_calls")
        if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("function"), dict) for c in calls):
            return []
        return [(c.get("id"), c["function"].get("name"), c.get("type")) for c in calls]

    def put_calls(self, index, arguments):
        # A new list and new call dicts: the ones found may be shared with the stored history
        # (Hermes 0.16 copies messages shallowly). A call whose arguments are the same stays as it was.
        msg = self.messages[index]
        calls = msg["tool_calls"]
        out = [call if call["function"].get("arguments") == args else dict(call, function=dict(call["function"], arguments=args))
               for call, (args, _parsed) in zip(calls, arguments)]
        if all(a is b for a, b in zip(out, calls)):
            return False
        msg["tool_calls"] = out
        return True
