"""What the bridge keeps of each session, and the two ways it puts the sidecar's views on Hermes'
messages: in place on the live dicts for one turn (`pre_llm_call`, undone by `restore`), and on
one request's own copies (`pre_model_call`, the view kept complete between calls). Only the
second may shorten an assistant message's tool-call arguments (`tool_calls` entries, input
clearing): the request gets new arguments, the stored history keeps its own.

Also how a Hermes message is shown to the sidecar: the content as Hermes sends it (`api_content`
replayed, stripped), the wire fields only.

A request is read through its shape's adapter (shapes.py): the view is kept by message index of
the conversation, whatever the shape, and each edit is put where that message lives in the request.

Invariant: nothing here decides what to shorten; an edit is applied only where the message still
holds what the sidecar holds (a `tool_calls` edit only where it keeps the request's calls), and
`restore` puts back exactly what was there (the same object), unless someone else changed the
message since.
"""
import json
import logging

from . import shapes
from .shape_base import alike, text_of

log = logging.getLogger("hmc")

UNSENT = object()  # a session's system prompt before any was sent
_WIRE_KEYS = ("tool_calls", "tool_call_id", "name")
_ANCHORS = (0.0, 0.25, 0.5, 0.75)


class Session:
    """What the bridge knows of one session: the conversation the sidecar holds (as (role, content)
    pairs in the form Hermes sends them), the edits applied in place on Hermes' live dicts this
    turn, and the last model-call view."""

    __slots__ = ("held", "generation", "backups", "inplace", "view", "calls", "view_id", "system", "tools_key", "measured", "tools_tokens")

    def __init__(self):
        self.held = None  # [(role, content)] as the sidecar holds them; None: unknown, send everything
        self.generation = 0  # the sidecar process `held`, `view`, `system` and `tools_key` belong to
        self.backups = []  # (live message dict, had content, original, edited)
        self.inplace = {}  # index -> (content as Hermes sends the edited dict, raw content as held)
        self.view = {}  # index -> content: the last pre_model_call view (complete)
        self.calls = {}  # index -> [(id, type, name, arguments)]: that view's tool_calls entries
        self.view_id = None
        self.system = UNSENT  # the system prompt last sent
        self.tools_key = None  # names of the tool schemas last sent
        self.measured = []  # Hermes' character count of each message after the system prompt, as last sent
        self.tools_tokens = (None, 0)  # (tool names, Hermes' token estimate of their schemas)


# -- a Hermes message as the sidecar is sent it -------------------------------------------------
def sent_content(msg):
    """The content Hermes sends for a live message (both 0.16 and 0.19 build every request this way):
    `api_content` replayed for user and assistant rows that carry it (0.19), text `strip()`ped."""
    content = msg.get("content")
    if msg.get("role") in ("user", "assistant"):
        stamped = msg.get("api_content")
        if isinstance(stamped, str) and stamped:
            content = stamped
    return content.strip() if isinstance(content, str) else content


def _sent_call(call):
    """A tool call as Hermes sends it: Codex-only fields dropped, arguments re-serialised sorted."""
    if not isinstance(call, dict):
        return call
    out = {k: v for k, v in call.items() if k not in ("call_id", "response_item_id", "extra_content")}
    fn = call.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
        try:
            out["function"] = dict(fn, arguments=json.dumps(json.loads(fn["arguments"]), separators=(",", ":"), sort_keys=True))
        except ValueError:
            pass
    return out


def wire_message(msg, content):
    """The message the sidecar is sent: role, content and the fields that cost tokens on the wire."""
    out = {"role": msg.get("role"), "content": content}
    for key in _WIRE_KEYS:
        if key in msg:
            out[key] = msg[key]
    return out


def live_message(msg):
    out = wire_message(msg, sent_content(msg))
    if isinstance(out.get("tool_calls"), list):
        out["tool_calls"] = [_sent_call(c) for c in out["tool_calls"]]
    return out


def approx_bytes(msg):
    """About how many bytes a message takes on the wire, cheaply (its text and tool-call arguments)."""
    if not isinstance(msg, dict):
        return 64
    content = msg.get("content")
    size = 64 + (len(content) if isinstance(content, str) else len(str(content)) if content is not None else 0)
    calls = msg.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            fn = call.get("function") if isinstance(call, dict) else None
            size += 64 + (len(str(fn.get("arguments", ""))) if isinstance(fn, dict) else 0)
    return size


def edits(listed, length):
    """(index, content) pairs of a well-formed `edits` list, within `length` messages."""
    for edit in listed if isinstance(listed, list) else []:
        index = edit.get("index") if isinstance(edit, dict) else None
        content = edit.get("content") if isinstance(edit, dict) else None
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < length and isinstance(content, str):
            yield index, content


def _entries(listed, length):
    """(index, content or None, calls or None) of a pre_model_call answer's well-formed edits (an
    edit may carry `content`, `tool_calls` or both); calls as (id, type, name, arguments) with
    arguments a string. A malformed `tool_calls` is left out (sent raw)."""
    for edit in listed if isinstance(listed, list) else []:
        index = edit.get("index") if isinstance(edit, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < length:
            continue
        content = edit.get("content") if isinstance(edit.get("content"), str) else None
        calls = _calls(edit.get("tool_calls"))
        if content is not None or calls is not None:
            yield index, content, calls


def _calls(listed):
    if not isinstance(listed, list):
        return None
    out = []
    for call in listed:
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("arguments"), str):
            return None
        out.append((call.get("id"), call.get("type"), fn.get("name"), fn["arguments"]))
    return out


def same_as_held(held, msg):
    """Whether a live message is the held (role, content) pair as Hermes would send it. A message
    the sidecar first saw in an Anthropic or Responses request is held as that shape carried it (an
    empty text as a placeholder): the same message."""
    role, content = held
    if msg.get("role") != role:
        return False
    sent = sent_content(msg)
    return content == sent or alike(role, content, sent) or alike(role, sent, content)


# -- pre_llm_call: in place on the live dicts, for one turn -------------------------------------
def apply_in_place(sess, messages, listed):
    """Applies a pre_llm_call answer's edits on Hermes' live dicts, keeping what was there."""
    edited = {id(b[0]) for b in sess.backups}  # a set: a long session carries tens of thousands of edits
    for index, content in edits(listed, len(messages)):
        msg = messages[index]
        if not isinstance(msg, dict) or id(msg) in edited:
            continue
        edited.add(id(msg))
        sess.backups.append((msg, "content" in msg, msg.get("content"), content))
        msg["content"] = content
        sess.inplace[index] = (content.strip(), sess.held[index][1])


def restore(sess):
    backups, sess.backups = sess.backups, []
    sess.inplace = {}
    for msg, had, original, edited in reversed(backups):
        if msg.get("content") is edited:  # someone else changed it since: leave theirs alone
            if had:
                msg["content"] = original
            else:
                msg.pop("content", None)


# -- pre_model_call: on one request's own copies ------------------------------------------------
def base(sess, held, request):
    """How many messages the sidecar holds unchanged (`held`, None if unknown), from a few anchors
    (never every message); None when the history was rewritten (Hermes' compressor, /undo): then
    everything is sent. `request`: the model request, read through its shape's adapter."""
    if held is None or len(request.messages) < len(held):
        return None
    for frac in _ANCHORS:
        i = int(frac * (len(held) - 1))
        if i < len(held) - 1 and not _same(sess, request, i, request.text(i)):
            return None
    # The last one may differ alone: this turn's user message gains injected context; a steer
    # note lands on the last tool result. The sidecar re-reads from there.
    last = len(held) - 1
    return len(held) if not held or _same(sess, request, last, request.text(last)) else last


def _same(sess, request, i, sent):
    """Whether the request's message i, whose text is `sent`, is the one the sidecar holds at i (or
    this turn's in-place edit of it)."""
    role, content = sess.held[i]
    if request.role(i) != role:
        return False
    return sent == content or (i in sess.inplace and sent == sess.inplace[i][0]) or request.alike(role, content, sent)


def raw(sess, request, msg, i):
    """A request message as the sidecar holds it: an in-place edit of this turn maps back to raw, and
    a text the shape carries lossily (a placeholder) is the held one."""
    content = text_of(msg.get("content"))
    edited = sess.inplace.get(i)
    if edited is not None and content == edited[0]:
        content = edited[1]
    elif sess.held is not None and i < len(sess.held) and content != sess.held[i][1] \
            and request.alike(msg.get("role"), sess.held[i][1], content):
        content = sess.held[i][1]
    return wire_message(msg, content)


def take_view(sess, result, length, sent_view):
    """Keeps the complete view a pre_model_call answer describes: a delta `since` the view the
    bridge named (`sent_view`), else whole. An entry replaces the whole entry of its index: its
    content and its calls, a part left out being sent raw."""
    delta = result.get("since") is not None and result.get("since") == sent_view
    view, calls = (sess.view, sess.calls) if delta else ({}, {})
    for index in result.get("removed") or []:
        view.pop(index, None)
        calls.pop(index, None)
    for index, content, listed in _entries(result.get("edits"), length):
        _put(view, index, content)
        _put(calls, index, listed)
    sess.view, sess.calls, sess.view_id = view, calls, result.get("view") if isinstance(result.get("view"), int) else None


def _put(table, index, value):
    if value is None:
        table.pop(index, None)
    else:
        table[index] = value


def apply_view(sess, request):
    """Puts the view on the request: each edit where the message still holds what the sidecar
    holds; an in-place edit the view no longer wants goes back to raw; a `tool_calls` edit only
    when it keeps the request's calls (else it is dropped, with one log line). True when one changed."""
    length = min(len(request.messages), len(sess.held))
    changed = stale = False
    targets = dict.fromkeys(sess.inplace)
    targets.update(sess.view)
    targets.update(dict.fromkeys(sess.calls))
    for index in targets:
        sent = request.text(index) if index < length else None
        if index >= length or not _same(sess, request, index, sent):
            stale = True
            continue
        content = sess.view.get(index, sess.held[index][1]) if index in sess.view or index in sess.inplace else None
        if isinstance(content, str) and sent != content and request.put(index, content):
            changed = True
        listed = sess.calls.get(index)
        if listed is not None:
            arguments = shapes.call_arguments(request, index, listed)
            if arguments is None:
                del sess.calls[index]  # dropped once; the sidecar sends it again only if it changes
                log.warning("hmc: a tool_calls edit of message %d does not keep the request's calls (ids, names, order) "
                            "or its arguments are not JSON objects; that message goes with its calls as they are", index)
            elif request.put_calls(index, arguments):
                changed = True
    if stale:  # a message changed under us: leave it raw, and send everything next time
        sess.held, sess.view, sess.calls, sess.view_id = None, {}, {}, None
    return changed
