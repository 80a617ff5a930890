/**
 * Which model writes layer 1's summaries: the host's auxiliary model when the host said in
 * `hello` that it answers `llm.complete` (the Hermes bridge does when `ctx.llm` exists), else the
 * OpenAI-compatible endpoint from the config, else none, with the reason layer 1 is off.
 *
 * Invariants: pure (the environment is passed in); the API key is read from the variable that
 * `endpoint.api_key_env` names, never from the config itself, and never appears in a reason.
 */
import type { HmcConfig } from '../config/keys.js';
import { hostComplete, type HostCall } from './host-complete.js';
import { completionsUrl, httpComplete } from './http-complete.js';
import { createSummariser } from './summariser.js';
import type { Complete, Summariser } from './types.js';

export type SummariserChoice =
  | { kind: 'host'; complete: Complete; describe: string }
  | { kind: 'endpoint'; complete: Complete; describe: string }
  | { kind: 'none'; reason: string };

export interface ChoiceInput {
  /** The capabilities the host listed in its `hello` params (undefined: it sent none). */
  hostCapabilities?: readonly string[];
  /** How the engine reaches the host (RuntimeOptions.hostCall); without it the host cannot be asked. */
  hostCall?: HostCall;
  endpoint: HmcConfig['background_compression']['endpoint'];
  /** The environment to read the API key from (process.env in the runtime). */
  env: Readonly<Record<string, string | undefined>>;
}

export function chooseComplete(input: ChoiceInput): SummariserChoice {
  if (input.hostCall && input.hostCapabilities?.includes('llm.complete')) {
    return {
      kind: 'host',
      complete: hostComplete(input.hostCall),
      describe: "the host's auxiliary model (llm.complete)",
    };
  }
  const { url, model, api_key_env: keyEnv } = input.endpoint;
  if (!url.trim()) {
    const hostSide = input.hostCapabilities?.includes('llm.complete')
      ? 'the host offers llm.complete but this process cannot call it'
      : 'the host offers no auxiliary model (llm.complete)';
    return { kind: 'none', reason: `${hostSide} and background_compression.endpoint.url is empty` };
  }
  const target = completionsUrl(url);
  if (!target.ok) return { kind: 'none', reason: target.reason };
  if (!model.trim())
    return { kind: 'none', reason: 'background_compression.endpoint.model is empty (the endpoint needs a model name)' };
  let apiKey: string | undefined;
  if (keyEnv.trim()) {
    apiKey = input.env[keyEnv.trim()];
    if (!apiKey)
      return {
        kind: 'none',
        reason: `the environment variable ${keyEnv.trim()} (background_compression.endpoint.api_key_env) is not set`,
      };
  }
  return {
    kind: 'endpoint',
    complete: httpComplete({ url, model: model.trim(), ...(apiKey ? { apiKey } : {}) }),
    describe: `${model.trim()} at ${target.shown.replace(/^the endpoint /, '')}`,
  };
}

export interface SummariserSetup extends Omit<ChoiceInput, 'endpoint'> {
  /** The `background_compression` config slice (endpoint, timeout_seconds). */
  config: HmcConfig['background_compression'];
  log: (line: string) => void;
  now?: () => number;
}

/**
 * The summariser layer 1 uses, ready to call, or null with the one sentence to log once: the
 * choice above wrapped with the configured timeout.
 */
export function summariserFor(
  setup: SummariserSetup,
): { summariser: Summariser; uses: string } | { summariser: null; why: string } {
  const choice = chooseComplete({ ...setup, endpoint: setup.config.endpoint });
  if (choice.kind === 'none') return { summariser: null, why: `layer 1 is off: ${choice.reason}` };
  const summariser = createSummariser({
    complete: choice.complete,
    timeoutMs: setup.config.timeout_seconds * 1000,
    log: setup.log,
    ...(setup.now ? { now: setup.now } : {}),
  });
  return { summariser, uses: `layer 1 summarises with ${choice.describe}` };
}
