"""What every request-shape adapter shares: the adapter's face (`ShapedRequest`, and `ItemRequest`
for shapes whose conversation is their own items), a conversation
built message by message as it is read (`Lazy`: a long request is read at a few anchors and its
new tail, not whole), and the rule for text a shape carries lossily (`alike`).

Invariant: nothing here writes to a request; a value of a form not listed here makes the adapter
refuse the whole request (`Unreadable`), never guess.
"""
import json

# What a shape sends in place of an empty text (Hermes' converters: agent/anthropic_adapter.py,
# agent/codex_responses_adapter.py): the message is the same one.
PLACEHOLDERS = frozenset(("", "(empty)", "(empty message)", "(no output)"))
_TEXT_PARTS = ("text", "input_text", "output_text")


class Unreadable(Exception):
    """A request of a form the adapter does not know: it is left raw."""


class ShapedRequest:
    """One model request as the sidecar sees it. An adapter sets the fields and overrides the
    methods it supports; the defaults place nothing."""

    shape = ""

    def __init__(self):
        self.system = None  # the system prompt as sent (None: none)
        self.head = []  # what Hermes counts ahead of the conversation: the system prompt as a message
        self.tools = None  # the tool schemas as sent
        self.tool_names = ()
        self.messages = []  # the conversation: chat messages (role, content, tool_calls, tool_call_id)

    def role(self, index):
        """Message `index`'s role (read without building the message where the adapter can)."""
        return self.messages[index].get("role")

    def text(self, index):
        """Message `index`'s text as the request carries it (or its content, when that is no text)."""
        return text_of(self.messages[index].get("content"))

    def put(self, index, content):
        """Writes `content` (a string) as message `index`'s text in the request; False if it cannot."""
        return False

    def calls(self, index):
        """[(id, name, type)] of the calls message `index` carries in the request, in order."""
        return []

    def same_id(self, sent, edited):
        """Whether an edit's call id names the call the request carries as `sent`."""
        return sent == edited

    def put_calls(self, index, arguments):
        """Writes [(arguments, parsed)] (checked: shapes.call_arguments) on message `index`'s calls."""
        return False

    def alike(self, role, held, sent):
        """Whether `sent` (read from the request) is `held` as this shape carries it, when they differ."""
        return False


class Lazy:
    """A read-only list whose item `i` is built by `build(i)` when first read, then kept."""

    __slots__ = ("_build", "_n", "_cache")

    def __init__(self, n, build):
        self._build, self._n, self._cache = build, n, {}

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        msg = self._cache.get(i)
        if msg is None:
            msg = self._cache[i] = self._build(i)
        return msg

    def __iter__(self):
        return (self[i] for i in range(self._n))

    def forget(self, i):
        """Item i is built again when next read (its source changed)."""
        self._cache.pop(i, None)


class ItemRequest(ShapedRequest):
    """A request whose conversation is a list of the shape's own items (Anthropic's messages and
    blocks, Responses' items) with the system prompt and the tools apart. The adapter's `_scan`
    says where each chat message lies among the items; `_message(i)` builds message i when read."""

    def __init__(self, items, system, tools):
        super().__init__()
        self.items = items
        self.system = system
        self.head = [{"role": "system", "content": system}] if system is not None else []
        self.tools = tools if isinstance(tools, list) else None
        self.tool_names = tuple(t.get("name") for t in self.tools if isinstance(t, dict)) if self.tools else ()
        self.where = self._scan()
        self.messages = Lazy(len(self.where), self._message)

    def _scan(self):
        raise NotImplementedError

    def _message(self, i):
        raise NotImplementedError


def alike(role, held, sent):
    """Whether `sent` carries `held` the way a converting shape does: an empty text sent as a
    placeholder (or left out), or an assistant's text cut into blocks or joined (interleaved
    thinking, merged turns), the same characters but for white space."""
    if (held is None or (isinstance(held, str) and not held.strip())) and (sent is None or sent in PLACEHOLDERS):
        return True
    if role == "assistant":
        a, b = _squash(held), _squash(sent)
        return a is not None and a == b
    return False


def _squash(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return "".join(content.split())
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") in _TEXT_PARTS]
        return "".join("".join(t.split()) for t in texts if isinstance(t, str)) if len(texts) == len(content) else None
    return None


def text_of(content):
    """A content's text when it is one text part (Claude's cache markers wrap a message's text in
    one `{"type": "text", "text", "cache_control"}` part), else the content as it is."""
    part = one_text(content, ("text",))
    return part["text"] if part is not None else content


def one_text(parts, kinds=_TEXT_PARTS):
    """The part of a list that is a lone text part (its text a string), else None."""
    if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict) \
            and parts[0].get("type") in kinds and isinstance(parts[0].get("text"), str):
        return parts[0]
    return None


def compact(value):
    """A call's arguments as Hermes sends them in chat completions (compact, keys sorted)."""
    try:
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def system_text(system):
    """A system prompt as text: a string, or the text of its blocks (Anthropic's marked form)."""
    if system is None or isinstance(system, str):
        return system
    if isinstance(system, list) and all(isinstance(b, dict) and isinstance(b.get("text"), str) for b in system):
        return "".join(b["text"] for b in system)
    return json.dumps(system, default=str)


def listed(value, what, each=True):
    """`value` when it is a list (of dicts, with `each`), else the request is unreadable. An adapter
    whose scan reads every item checks them there instead (`each=False`)."""
    if not isinstance(value, list) or (each and not all(isinstance(v, dict) for v in value)):
        raise Unreadable(what)
    return value
