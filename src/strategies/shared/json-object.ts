/**
 * Reads a whole text as one JSON object, for strategies that look inside small envelopes.
 * Invariant: null (never a throw) for anything longer than `maxChars` or not exactly one object.
 */
export function parseJsonObjectText(text: string, maxChars: number): Record<string, unknown> | null {
  const body = text.trim();
  if (body.length > maxChars || !body.startsWith('{') || !body.endsWith('}')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : null;
}
