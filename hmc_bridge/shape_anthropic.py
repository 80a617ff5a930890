"""The Anthropic messages request (`api_mode: anthropic_messages`; Anthropic's API, Claude through
Anthropic-compatible routes, MiniMax, Kimi's coding endpoint), as Hermes builds it from the chat
messages (agent/anthropic_adapter.py `convert_messages_to_anthropic`, 0.16.0 and 0.19.0):

- `system` apart: a string, or text blocks (one carrying `cache_control`);
- `messages`, `user` and `assistant` only. An assistant message holds its text block and one
  `tool_use` block per call (`id`, `name`, `input`: the arguments as a dict). A user message holds
  the `tool_result` blocks (`tool_use_id`, `content`) of every call of the answer before it, in
  order, then any user text merged after them (a `/steer` note, the todo snapshot).

Read back, each `tool_result` is a `tool` message and each run of other blocks one `user` message,
so the conversation is the one the chat shape carries. An edit writes a `tool_result`'s
`content`, a text block's `text`, or a `tool_use`'s `input`; the block stays where it was, with
its `cache_control` marker (Hermes places them before any middleware runs).

Invariant: no block is added, removed or moved, and no marker, id or name is touched.
"""
from .shape_base import ItemRequest, Unreadable, alike, compact, listed, one_text, system_text

_RESULT, _USER, _RUN, _ASSISTANT = range(4)


def sanitize_id(call_id):
    """A call id as Hermes sends it to Anthropic (`_sanitize_tool_id`: [a-zA-Z0-9_-], else `_`)."""
    if not isinstance(call_id, str) or not call_id:
        return "tool_0"
    out = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in call_id)
    return out or "tool_0"


class AnthropicRequest(ItemRequest):
    shape = "anthropic_messages"

    def __init__(self, fields, conversation=None):
        items = listed(fields.get("messages") if conversation is None else conversation, "messages", each=False)
        super().__init__(items, system_text(fields.get("system")), fields.get("tools"))

    def _scan(self):
        """Where each message of the conversation is: (kind, message index, first block, end block)
        (blocks 0, 0 for a whole message). Run on every request, so one pass of plain lookups keeping
        only tuples of numbers (which Python's garbage collector soon stops tracking)."""
        where = []
        add = where.append
        try:
            for mi, msg in enumerate(self.items):
                role, content = msg.get("role"), msg.get("content")
                if role == "assistant":
                    add((_ASSISTANT, mi, 0, 0))
                elif role != "user":
                    raise Unreadable("role %r" % role)
                elif type(content) is not list:
                    add((_USER, mi, 0, 0))
                elif len(content) == 1 and content[0].get("type") == "tool_result":  # most: one result
                    add((_RESULT, mi, 0, 1))
                else:
                    start = None
                    for bi, block in enumerate(content):
                        if block.get("type") == "tool_result":
                            if start is not None:
                                add((_RUN, mi, start, bi))
                                start = None
                            add((_RESULT, mi, bi, bi + 1))
                        elif start is None:
                            start = bi
                    if start is not None or not content:
                        add((_RUN, mi, start or 0, len(content)))
        except AttributeError:
            raise Unreadable("a block that is not an object") from None
        return where

    def _message(self, i):
        kind, mi, first, end = self.where[i]
        msg = self.items[mi]
        if kind == _USER:
            return {"role": "user", "content": msg.get("content")}
        if kind == _RUN:
            blocks = msg["content"][first:end]
            part = one_text(blocks, ("text",))
            return {"role": "user", "content": part["text"] if part is not None else blocks}
        if kind == _RESULT:
            block = msg["content"][first]
            content = block.get("content")
            part = one_text(content, ("text",))
            return {"role": "tool", "content": part["text"] if part is not None else content, "tool_call_id": block.get("tool_use_id")}
        content = msg.get("content")
        if not isinstance(content, list):
            return {"role": "assistant", "content": content}
        texts = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
        out = {"role": "assistant", "content": "" if not texts else texts[0].get("text") if len(texts) == 1 else texts}
        uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
        if uses:
            out["tool_calls"] = [{"id": b.get("id"), "type": "function", "function": {"name": b.get("name"), "arguments": compact(b.get("input"))}}
                                 for b in uses]
        return out

    def _text_block(self, i):
        """The block (or message) whose `text` (or `content`) is message i's text, and its key."""
        kind, mi, first, end = self.where[i]
        msg = self.items[mi]
        content = msg.get("content")
        if kind == _RESULT:
            return content[first], "content"
        if kind == _RUN:
            part = one_text(content[first:end], ("text",))
            return (part, "text") if part is not None else (None, None)
        if isinstance(content, str) or content is None and kind == _USER:
            return msg, "content"
        texts = [b for b in content if isinstance(b, dict) and b.get("type") == "text"] if isinstance(content, list) else []
        return (texts[0], "text") if len(texts) == 1 and isinstance(texts[0].get("text"), str) else (None, None)

    def role(self, index):
        return "tool" if self.where[index][0] == _RESULT else "assistant" if self.where[index][0] == _ASSISTANT else "user"

    def text(self, index):
        kind, mi, first, _ = self.where[index]
        if kind != _RESULT:
            return self.messages[index]["content"]
        content = self.items[mi]["content"][first].get("content")
        if type(content) is str:  # most results: no need to look further
            return content
        part = one_text(content, ("text",))
        return part["text"] if part is not None else content

    def put(self, index, content):
        block, key = self._text_block(index)
        if block is None or not content:  # Anthropic refuses an empty text block (Hermes sends placeholders)
            return False
        block[key] = content
        self.messages.forget(index)
        return True

    def _uses(self, index):
        kind, mi, _, _ = self.where[index]
        content = self.items[mi].get("content")
        if kind != _ASSISTANT or not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]

    def calls(self, index):
        return [(b.get("id"), b.get("name"), "function") for b in self._uses(index)]

    def same_id(self, sent, edited):
        return sent == edited or sent == sanitize_id(edited)

    def put_calls(self, index, arguments):
        for block, (_args, parsed) in zip(self._uses(index), arguments):
            block["input"] = parsed
        return True

    def alike(self, role, held, sent):
        return alike(role, held, sent)
