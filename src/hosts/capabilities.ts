/**
 * What a host can do with the sidecar's answers, as its `hello` says (DESIGN §3). A host lists its
 * capabilities in `hello`; one that names itself but lists none gets what this table knows of
 * that name; anything else gets nothing beyond the protocol's base (content edits).
 *
 * - `tool_calls`: the host applies a `pre_model_call` edit's `tool_calls` (shorter arguments of
 *   answered calls) to that one request, never to its stored history.
 * - `llm.complete`: the host answers the sidecar's `llm.complete` (its auxiliary model).
 * - `model_call`, `append`: it calls `pre_model_call` before every model call; it sends
 *   `base` + `append`.
 *
 * Invariant: an explicit list in `hello` wins over this table, whole (a host that lists its
 * capabilities has said everything it can do); a name this table does not know gets nothing.
 */

/** A capability a host may list in its `hello`. */
export type HostCapability = 'tool_calls' | 'llm.complete' | 'model_call' | 'append' | (string & {});

/**
 * Hosts known by the name they give in `hello` that send no capability list. `replay-bench` is
 * ../shared/bench/replay.py, the ideal host of the hidden measurement: its header says it applies
 * `tool_calls` edits (and counts a wrong one as a wire violation); `in-process` is
 * hosts/in-process.ts, which applies them in place and restores them.
 */
const NAMED: Readonly<Record<string, readonly HostCapability[]>> = {
  'replay-bench': ['tool_calls'],
  'in-process': ['tool_calls'],
};

/** What the host of this `hello` can do: its own list when it sent one, else what its name is known for. */
export function hostCapabilities(hello: {
  host?: unknown;
  capabilities?: readonly string[] | undefined;
}): ReadonlySet<string> {
  if (hello.capabilities) return new Set(hello.capabilities);
  return new Set(typeof hello.host === 'string' ? (NAMED[hello.host] ?? []) : []);
}
