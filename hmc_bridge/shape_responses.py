"""The Responses request (`api_mode: codex_responses`; OpenAI Codex, xAI, api.openai.com, Copilot for
GPT-5, a provider with `transport: codex_responses`), as Hermes builds it from the chat messages
(agent/codex_responses_adapter.py `_chat_messages_to_responses_input`, then
`_preflight_codex_input_items`, 0.16.0 and 0.19.0):

- `instructions` apart (the system prompt), `input` a list of items;
- a user message: `{"role": "user", "content"}` (a string, or `input_text` / `input_image` parts);
- an assistant message: its `reasoning` items, then its text (`{"role": "assistant", "content"}`,
  or the `message` items Hermes replays with their ids), then one `function_call` item per call
  (`call_id`, `name`, `arguments`: the compact JSON string);
- a tool result: a `function_call_output` item (`call_id`, `output`).

Read back, the items of one assistant message make one `assistant` message, so the conversation is
the one the chat shape carries. An edit writes an item's `output`, `content` (or its one text
part's `text`) or `arguments`. Hermes rebuilds every item from its known keys after the
middleware and raises on an item of an unknown shape: only those keys' values change here.

Invariant: no item is added, removed or moved, and no id, call id or name is touched.
"""
from .shape_base import ItemRequest, Unreadable, alike, listed, one_text, system_text

_USER, _TOOL, _ASSISTANT = range(3)


class ResponsesRequest(ItemRequest):
    shape = "codex_responses"

    def __init__(self, fields, conversation=None):
        items = listed(fields.get("input") if conversation is None else conversation, "input", each=False)
        instructions = fields.get("instructions")
        super().__init__(items, system_text(instructions) if instructions else None, fields.get("tools"))

    def _scan(self):
        """Where each message of the conversation is: (kind, item index, 0) for user and tool
        messages, (kind, first item, end) for an assistant's items, which are contiguous. Run on
        every request, so one pass of plain lookups keeping only tuples of numbers (a list per
        message would set Python's garbage collector going on every call of a long session)."""
        where = []
        start, phase, plain = None, 0, False  # the assistant message being read; phase 0: reasoning, 1: text, 2: calls
        try:
            for ii, item in enumerate(self.items):
                kind, role = item.get("type"), item.get("role")
                if kind == "function_call_output" or (role == "user" and kind in (None, "message")):
                    if start is not None:
                        where[-1] = (_ASSISTANT, start, ii)
                        start = None
                    where.append((_TOOL if kind == "function_call_output" else _USER, ii, 0))
                    continue
                if kind == "function_call":
                    opens = start is None
                elif kind == "reasoning":
                    opens = start is None or phase > 0
                elif role == "assistant" and kind in (None, "message"):
                    # A plain text item is one message; Hermes' replayed `message` items may be several.
                    opens = start is None or phase == 2 or (phase == 1 and (kind is None or plain))
                else:
                    raise Unreadable("an item of type %r, role %r" % (kind, role))
                if opens:
                    if start is not None:
                        where[-1] = (_ASSISTANT, start, ii)
                    start, phase = ii, 0
                    where.append((_ASSISTANT, ii, ii))  # its end is set when it closes
                if kind == "function_call":
                    phase = 2
                elif kind != "reasoning":
                    phase, plain = 1, kind is None
        except AttributeError:
            raise Unreadable("an item that is not an object") from None
        if start is not None:
            where[-1] = (_ASSISTANT, start, len(self.items))
        return where

    def _parts(self, i):
        """An assistant message's text items and call items, in order."""
        _, start, end = self.where[i]
        texts, calls = [], []
        for ii in range(start, end):
            kind = self.items[ii].get("type")
            if kind == "function_call":
                calls.append(ii)
            elif kind != "reasoning":
                texts.append(ii)
        return texts, calls

    def _message(self, i):
        entry = self.where[i]
        if entry[0] == _USER:
            content = self.items[entry[1]].get("content")
            part = one_text(content, ("input_text",))
            return {"role": "user", "content": part["text"] if part is not None else content}
        if entry[0] == _TOOL:
            item = self.items[entry[1]]
            output = item.get("output")
            part = one_text(output, ("input_text",))
            return {"role": "tool", "content": part["text"] if part is not None else output, "tool_call_id": item.get("call_id")}
        texts, calls = self._parts(i)
        parts = []
        for ii in texts:
            content = self.items[ii].get("content")
            parts.extend(content if isinstance(content, list) else [{"type": "output_text", "text": content}])
        if not parts:
            content = ""
        elif len(parts) == 1 and isinstance(parts[0], dict) and isinstance(parts[0].get("text"), str):
            content = parts[0]["text"]
        else:
            content = parts
        out = {"role": "assistant", "content": content}
        if calls:
            out["tool_calls"] = [{"id": self.items[ii].get("call_id"), "type": "function",
                                  "function": {"name": self.items[ii].get("name"), "arguments": self.items[ii].get("arguments")}}
                                 for ii in calls]
        return out

    def _text_of(self, i):
        """The dict whose key holds message i's text, and that key; (None, None) when it has no one place."""
        entry = self.where[i]
        if entry[0] == _TOOL:
            item = self.items[entry[1]]
            part = one_text(item.get("output"), ("input_text",))
            return (part, "text") if part is not None else (item, "output")
        texts = [entry[1]] if entry[0] == _USER else self._parts(i)[0]
        if len(texts) != 1:
            return None, None
        item = self.items[texts[0]]
        content = item.get("content")
        if isinstance(content, str):
            return item, "content"
        part = one_text(content, ("input_text", "output_text"))
        return (part, "text") if part is not None else (None, None)

    def role(self, index):
        kind = self.where[index][0]
        return "tool" if kind == _TOOL else "user" if kind == _USER else "assistant"

    def text(self, index):
        entry = self.where[index]
        if entry[0] != _TOOL:
            return self.messages[index]["content"]
        output = self.items[entry[1]].get("output")
        if type(output) is str:  # most outputs: no need to look further
            return output
        part = one_text(output, ("input_text",))
        return part["text"] if part is not None else output

    def put(self, index, content):
        holder, key = self._text_of(index)
        if holder is None:
            return False
        holder[key] = content
        self.messages.forget(index)
        return True

    def calls(self, index):
        if self.where[index][0] != _ASSISTANT:
            return []
        return [(self.items[ii].get("call_id"), self.items[ii].get("name"), "function") for ii in self._parts(index)[1]]

    def put_calls(self, index, arguments):
        for ii, (args, _parsed) in zip(self._parts(index)[1], arguments):
            self.items[ii]["arguments"] = args
        return True

    def alike(self, role, held, sent):
        return alike(role, held, sent)
