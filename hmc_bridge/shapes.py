"""Hermes' request shapes (its `api_mode`) as the bridge reads and edits one model request. One adapter
per shape (shape_chat.py, shape_anthropic.py, shape_responses.py) shows the request as the one
conversation the sidecar holds (OpenAI chat messages: `role`, `content`, `tool_calls`,
`tool_call_id`; the system prompt apart) and puts each edit of the sidecar's view back where that
message lives in the request: a tool result's text, a text block, a call's arguments. The engine
decides the same way whatever the shape; only where an edit lands differs (docs/hermes.md
"Request shapes").

Also here: the check every `tool_calls` edit passes before it is put on a request (the same calls,
in the same order, with arguments that are a JSON object), whatever the shape.

Invariant: an adapter writes only the value that carries one message's text or one call's
arguments, on Hermes' copy of one request; never a key, a block, an item, an id or a prompt-cache
marker. A request it cannot read whole is left raw (`read` answers None), and an edit it cannot
place is left out.
"""
import json

from . import shape_anthropic, shape_chat, shape_responses
from .shape_base import Unreadable

_ADAPTERS = {
    None: shape_chat.ChatRequest,  # a Hermes that does not say its api_mode speaks chat completions
    "chat_completions": shape_chat.ChatRequest,
    "anthropic_messages": shape_anthropic.AnthropicRequest,
    "codex_responses": shape_responses.ResponsesRequest,
}


def read(api_mode, fields, conversation=None):
    """The adapter for one request of `api_mode`, or None (a shape not covered, e.g. Bedrock, or a
    request of a form the adapter does not know: it goes raw). `fields` holds the request's keys
    (system prompt, tool schemas, and the conversation unless `conversation` is given: Hermes
    0.16's `pre_api_request` hands over the very list that is sent apart from a copy of the body)."""
    adapter = _ADAPTERS.get(api_mode)
    if adapter is None or not isinstance(fields, dict):
        return None
    try:
        return adapter(fields, conversation)
    except Unreadable:
        return None


def call_arguments(request, index, edited):
    """What a `tool_calls` edit of message `index` puts on `request`: [(arguments, parsed)] per call,
    when the edit (`edited`: [(id, type, name, arguments)], views.py) keeps the request's calls (as
    many, the same ids, types and names, in order) and every `arguments` is a JSON object string;
    else None (the edit is left out)."""
    sent = request.calls(index)
    if not sent or not isinstance(edited, list) or len(edited) != len(sent):
        return None
    out = []
    for (call_id, name, kind), (edit_id, edit_kind, edit_name, arguments) in zip(sent, edited):
        if not request.same_id(call_id, edit_id) or edit_name != name or edit_kind != kind or not isinstance(arguments, str):
            return None
        try:
            parsed = json.loads(arguments)
        except ValueError:
            return None
        if not isinstance(parsed, dict):
            return None
        out.append((arguments, parsed))
    return out
