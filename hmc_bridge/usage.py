"""The provider's usage of every model call (issue 24): Hermes hands each `post_api_request` hook
(0.16.0 and 0.19.0) the usage of that one API call, normalised by its own `normalize_usage`
(`usage=`: input, output, cache read, cache write and reasoning tokens, and `prompt_tokens`, the
three input buckets together), with the ids that name the call (`api_request_id`, the `call_id`
HMC's pre_model_call carried; `turn_id`; `api_call_count`). This turns them into the sidecar's
`update_from_response` params, with Hermes' own price of the model (agent/usage_pricing.py).

Invariant: stdlib only, never raises out (a call the bridge cannot read is left out, never guessed);
Hermes' price is asked once per (model, provider, base URL) in a process.
"""
import logging

log = logging.getLogger("hmc")

_PRICES = {}


def _count(value):
    try:
        n = int(value or 0)
    except (TypeError, ValueError):
        return 0
    return n if n > 0 else 0


def params(kw, price_fn=None):
    """`update_from_response` params for one `post_api_request`, or None (no usage, no session)."""
    usage = kw.get("usage")
    sid = kw.get("session_id") or ""
    if not isinstance(usage, dict) or not sid:
        return None
    read, write = _count(usage.get("cache_read_tokens")), _count(usage.get("cache_write_tokens"))
    prompt = _count(usage.get("prompt_tokens")) or _count(usage.get("input_tokens")) + read + write
    out = {
        "session_id": sid,
        "model": str(kw.get("model") or ""),
        "provider": str(kw.get("provider") or ""),
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": _count(usage.get("output_tokens")) or _count(usage.get("completion_tokens")),
            "cache_read_tokens": read,
            "cache_write_tokens": write,
            "reasoning_tokens": _count(usage.get("reasoning_tokens")),
        },
        "source": "hook",
    }
    if kw.get("api_request_id"):
        out["call_id"] = str(kw["api_request_id"])
    if kw.get("turn_id"):
        out["turn_id"] = str(kw["turn_id"])
    if _count(kw.get("api_call_count")):
        out["call_count"] = _count(kw.get("api_call_count"))
    ended = kw.get("ended_at")
    if isinstance(ended, (int, float)) and not isinstance(ended, bool) and ended > 0:
        out["at"] = int(ended * 1000)
    price = (price_fn or host_price)(out["model"], out["provider"], kw.get("base_url"))
    if price:
        out["price"] = price
    return out


def host_price(model, provider, base_url):
    """Hermes' own price of `model` per million tokens (input, output, cache read, cache write, and
    its source), or None when Hermes has none (an unknown model, no pricing module). A cache price
    Hermes leaves out is the input price: a provider that names none charges none extra."""
    if not model:
        return None
    key = (model, provider or "", base_url or "")
    if key in _PRICES:
        return _PRICES[key]
    price = None
    try:
        from agent.usage_pricing import get_pricing_entry

        entry = get_pricing_entry(model, provider=provider or None, base_url=base_url or None)
        if entry is not None and entry.input_cost_per_million is not None and entry.output_cost_per_million is not None:
            base = float(entry.input_cost_per_million)
            read = entry.cache_read_cost_per_million
            write = entry.cache_write_cost_per_million
            price = {"input": base, "output": float(entry.output_cost_per_million),
                     "cache_read": float(read) if read is not None else base,
                     "cache_write": float(write) if write is not None else base,
                     "source": str(getattr(entry, "source", "") or "hermes")}
            if any(v < 0 for k, v in price.items() if k != "source"):
                price = None
    except Exception as exc:  # no Hermes pricing module, a lookup that failed: HMC's own table prices it
        log.debug("hmc: no Hermes price for %s (%s)", model, exc)
        price = None
    _PRICES[key] = price
    return price
