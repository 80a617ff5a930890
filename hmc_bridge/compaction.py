"""A compaction's list, both ways (issue 16; the context engine of engine.py): the messages of
Hermes' list HMC can read, as sent to the sidecar, with where each is in that list; and the
compacted list the sidecar's plan describes, made of Hermes' own message objects (copied as Hermes
copies them at a compaction) and HMC's summary messages.

Invariant: pure over its arguments. A message that cannot be read is left out; a plan that is not
a valid one gives None (and Hermes' built-in compressor compacts instead); a valid plan keeps only
messages of Hermes' list, in their order, and always shortens it.
"""
import logging

from . import views

log = logging.getLogger("hmc")


def readable(messages):
    """The messages HMC can read, as sent, and where each is in Hermes' list. One that cannot be read
    (None, not a message, one the wire form fails on) is left out and counted in one debug line,
    instead of handing the whole compaction to Hermes' compressor (issue 26, finding 7); a plan
    keeps none of them, so they leave the compacted list."""
    sent, where, skipped = [], [], 0
    for i, msg in enumerate(messages):
        if not (isinstance(msg, dict) and isinstance(msg.get("role"), str)):
            skipped += 1
            continue
        try:
            sent.append(views.live_message(msg))
        except Exception:
            skipped += 1
            continue
        where.append(i)
    if skipped:
        log.debug("hmc: compaction: %d of %d messages could not be read and are left out", skipped, len(messages))
    return sent, where


def apply_plan(messages, plan, where=None):
    """The compacted list a plan describes: Hermes' own messages (copied as Hermes copies them at a
    compaction) and HMC's summary messages; None when the plan is not a valid one. `where` maps the
    plan's indices (into the messages sent) to Hermes' list (None: the same)."""
    if not isinstance(plan, list) or not plan:
        return None
    try:
        from agent.context_compressor import COMPRESSED_SUMMARY_METADATA_KEY as summary_key, _fresh_compaction_message_copy as fresh
    except Exception:
        summary_key = "_compressed_summary"

        def fresh(msg):
            out = dict(msg)
            out.pop("_db_persisted", None)
            return out
    out, last = [], -1
    for item in plan:
        index = item.get("keep") if isinstance(item, dict) else None
        if isinstance(index, int) and not isinstance(index, bool):
            if where is not None:
                index = where[index] if 0 <= index < len(where) else -1
            if not last < index < len(messages) or not isinstance(messages[index], dict):
                return None
            out.append(fresh(messages[index]))
            last = index
            continue
        message = item.get("message") if isinstance(item, dict) else None
        if not (isinstance(message, dict) and message.get("role") in ("user", "assistant") and isinstance(message.get("content"), str)):
            return None
        out.append({"role": message["role"], "content": message["content"], summary_key: True})
    return out if len(out) < len(messages) else None
