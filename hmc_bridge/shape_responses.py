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
from .shape_base import Lazy, ShapedRequest, Unreadable, alike, listed, one_text, system_text

_USER, _TOOL, _ASSISTANT = range(3)


class ResponsesRequest(ShapedRequest):
    shape = "codex_responses"

    def __init__(self, fields, conversation=None):
        super().__init__()
        self.items = listed(fields.get("input") if conversation is None else conversation, "input", each=False)
        instructions = fields.get("instructions")
        self.system = system_text(instructions) if instructions else None
        self.head = [{"role": "system", "content": self.system}] if self.system is not None else []
        tools = fields.get("tools")
        self.tools = tools if isinstance(tools, list) else None
        self.tool_names = tuple(t.get("name") for t in tools if isinstance(t, dict)) if self.tools else ()
        self.where = self._scan()
        self.messages = Lazy(len(self.where), self._message)

    def _scan(self):
        """Where each message of the conversation is: (kind, item index) for user and tool messages,
        (kind, [text items], [call items], phase, plain) for an assistant's group of items. Run on
        every request, so kept to one pass of plain lookups."""
        where = []
        group = None  # the assistant message being read; phase 0: reasoning, 1: text, 2: calls
        try:
            for ii, item in enumerate(self.items):
                kind, role = item.get("type"), item.get("role")
                if kind == "function_call_output":
                    where.append((_TOOL, ii, None))
                    group = None
                elif kind == "function_call":
                    if group is None:
                        group = self._open(where)
                    group[2].append(ii)
                    group[3] = 2
                elif kind == "reasoning":
                    if group is None or group[3] > 0:
                        group = self._open(where)
                elif role == "assistant" and kind in (None, "message"):
                    # A plain text item is one message; Hermes' replayed `message` items may be several.
                    if group is None or group[3] == 2 or (group[3] == 1 and (kind is None or group[4])):
                        group = self._open(where)
                    group[1].append(ii)
                    group[3], group[4] = 1, kind is None
                elif role == "user" and kind in (None, "message"):
                    where.append((_USER, ii, None))
                    group = None
                else:
                    raise Unreadable("an item of type %r, role %r" % (kind, role))
        except AttributeError:
            raise Unreadable("an item that is not an object") from None
        return where

    @staticmethod
    def _open(where):
        group = [_ASSISTANT, [], [], 0, False]
        where.append(group)
        return group

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
        parts = []
        for ii in entry[1]:
            content = self.items[ii].get("content")
            parts.extend(content if isinstance(content, list) else [{"type": "output_text", "text": content}])
        if not parts:
            content = ""
        elif len(parts) == 1 and isinstance(parts[0], dict) and isinstance(parts[0].get("text"), str):
            content = parts[0]["text"]
        else:
            content = parts
        out = {"role": "assistant", "content": content}
        if entry[2]:
            out["tool_calls"] = [{"id": self.items[ii].get("call_id"), "type": "function",
                                  "function": {"name": self.items[ii].get("name"), "arguments": self.items[ii].get("arguments")}}
                                 for ii in entry[2]]
        return out

    def _text_of(self, i):
        """The dict whose key holds message i's text, and that key; (None, None) when it has no one place."""
        entry = self.where[i]
        if entry[0] == _TOOL:
            item = self.items[entry[1]]
            part = one_text(item.get("output"), ("input_text",))
            return (part, "text") if part is not None else (item, "output")
        texts = [entry[1]] if entry[0] == _USER else entry[1]
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
        entry = self.where[index]
        if entry[0] != _ASSISTANT:
            return []
        return [(self.items[ii].get("call_id"), self.items[ii].get("name"), "function") for ii in entry[2]]

    def put_calls(self, index, arguments):
        for ii, (args, _parsed) in zip(self.where[index][2], arguments):
            self.items[ii]["arguments"] = args
        return True

    def alike(self, role, held, sent):
        return alike(role, held, sent)
