/**
 * `Complete` over an OpenAI-compatible `/chat/completions` endpoint (llama.cpp, vLLM, Ollama, a
 * hosted API), with Node's own `fetch`: used when the host offers no auxiliary model and
 * `background_compression.endpoint.url` is set.
 *
 * Invariants: the AbortSignal cancels the request (connection included); every failure is a
 * CompleteError that names what went wrong (HTTP status and the start of the body, connection
 * refused, invalid JSON, no choices); the API key is sent only in the Authorization header and
 * never appears in an error message (the endpoint is named by its origin and path alone, and
 * quoted bodies are redacted).
 */
import { CompleteError } from './errors.js';
import { redactSecrets } from './redact.js';
import type { Complete } from './types.js';
import { errorText } from '../core/errors.js';

export interface HttpEndpoint {
  /** Base URL (`http://127.0.0.1:8080/v1`) or the full `/chat/completions` URL. */
  url: string;
  /** The model name sent in the request. */
  model: string;
  /** Sent as `Authorization: Bearer …` when set (read from the environment by choose.ts). */
  apiKey?: string;
}

/** How much of an error body is quoted in the error. */
const BODY_QUOTE_CHARS = 200;

export function httpComplete(endpoint: HttpEndpoint): Complete {
  const target = completionsUrl(endpoint.url);
  const key = endpoint.apiKey ?? '';
  const clean = (text: string): string => redactSecrets(key ? text.split(key).join('[REDACTED]') : text).text;
  return async (messages, maxTokens, signal) => {
    if (!target.ok) throw new CompleteError(target.reason, false);
    const where = target.shown;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    const body = JSON.stringify({
      model: endpoint.model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      max_tokens: maxTokens,
      stream: false,
    });
    let res: Response;
    try {
      res = await fetch(target.url, { method: 'POST', headers, body, signal, redirect: 'error' });
    } catch (err) {
      throw connectionError(err, where, signal, clean);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw connectionError(err, where, signal, clean);
    }
    if (!res.ok) {
      const quote = clean(text.slice(0, BODY_QUOTE_CHARS)).replace(/\s+/g, ' ').trim();
      const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
      throw new CompleteError(
        `${where} answered HTTP ${res.status}${quote ? `: ${quote}` : ' with an empty body'}`,
        retryable,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new CompleteError(
        `${where} answered with invalid JSON: ${clean(text.slice(0, BODY_QUOTE_CHARS)).replace(/\s+/g, ' ').trim() || '(empty body)'}`,
        true,
      );
    }
    return completion(json, where, endpoint.model);
  };
}

type Target = { ok: true; url: string; shown: string } | { ok: false; reason: string };

/** The `/chat/completions` URL for a base URL; shown without userinfo or query. */
export function completionsUrl(base: string): Target {
  let url: URL;
  try {
    url = new URL(base.trim());
  } catch {
    return { ok: false, reason: `background_compression.endpoint.url is not a valid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      reason: `background_compression.endpoint.url must be http or https (got ${url.protocol.replace(':', '')})`,
    };
  }
  if (url.username || url.password) {
    return {
      ok: false,
      reason:
        'background_compression.endpoint.url must not hold a user name or password: put the key in the variable named by endpoint.api_key_env',
    };
  }
  if (!/\/chat\/completions\/?$/.test(url.pathname))
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return { ok: true, url: url.href, shown: `the endpoint ${url.origin}${url.pathname}` };
}

/** The text of the first choice, checked. */
function completion(json: unknown, where: string, model: string): { text: string; model: string } {
  if (!isRecord(json)) throw new CompleteError(`${where} answered with JSON that is not an object`, true);
  if (isRecord(json.error)) {
    const msg = typeof json.error.message === 'string' ? json.error.message.slice(0, BODY_QUOTE_CHARS) : 'no message';
    throw new CompleteError(`${where} answered with an error: ${redactSecrets(msg).text}`, true);
  }
  const choices = json.choices;
  if (!Array.isArray(choices) || choices.length === 0)
    throw new CompleteError(`${where} answered with no choices`, true);
  const first: unknown = choices[0];
  const message = isRecord(first) ? first.message : undefined;
  const content = isRecord(message) ? message.content : isRecord(first) ? first.text : undefined;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((p: unknown) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('')
        : undefined;
  if (text === undefined) throw new CompleteError(`${where} answered with a choice that holds no text`, true);
  return { text, model: typeof json.model === 'string' && json.model ? json.model : model };
}

function connectionError(
  err: unknown,
  where: string,
  signal: AbortSignal,
  clean: (s: string) => string,
): CompleteError {
  if (signal.aborted) return new CompleteError(`${where} did not answer in time (request cancelled)`, true);
  const cause = err instanceof Error && isRecord(err.cause) ? err.cause : undefined;
  const code = cause && typeof cause.code === 'string' ? cause.code : '';
  if (code === 'ECONNREFUSED')
    return new CompleteError(`${where} refused the connection (is the server running?)`, true);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new CompleteError(`${where}: host not found (${code})`, code === 'EAI_AGAIN');
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return new CompleteError(`${where} closed the connection before answering`, true);
  const detail = cause && typeof cause.message === 'string' ? cause.message : errorText(err);
  return new CompleteError(`${where} could not be reached: ${clean(detail)}${code ? ` (${code})` : ''}`, true);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
