/**
 * Layer 1's summariser, as the engine uses it: `summariserFor` picks the model (the host's, else
 * the endpoint, else none with the reason) and wraps it with the timeout; the engine calls
 * `summarise` off the hook path. types.ts has the contract.
 *
 * Invariant: re-exports only; no logic here.
 */
export type { Complete, SummaryRequest, SummaryResult, Summariser } from './types.js';
export { createSummariser, type SummariserOptions } from './summariser.js';
export {
  chooseComplete,
  summariserFor,
  type ChoiceInput,
  type SummariserChoice,
  type SummariserSetup,
} from './choose.js';
export { hostComplete, type HostCall } from './host-complete.js';
export { httpComplete, type HttpEndpoint } from './http-complete.js';
export { CompleteError } from './errors.js';
export { redactSecrets, REDACTED, type Redaction } from './redact.js';
export { SECTIONS, DEFAULT_REQUEST_BUDGET_CHARS, estimateRequestChars } from './prompt.js';
