/**
 * Where a tool result's main text lives inside a JSON envelope (DESIGN §5): Hermes' `terminal`
 * puts its log in `output`, `read_file` its lines in `content`, `search_files` its hits in
 * `matches`. Shared by the envelope parser (envelope.ts beside it) and the inspector's
 * view (src/server/inspect-view.ts), so both read an envelope the same way.
 *
 * Invariant: pure, no imports; a text field counts only when it holds a string.
 */

/** JSON fields that carry a tool's main text, most specific first. */
export const TEXT_FIELDS: readonly string[] = ['output', 'content', 'stdout', 'result', 'text', 'body', 'data'];

/** The envelope's main text field (a string-valued TEXT_FIELDS member), or undefined. */
export function mainTextField(
  json: Record<string, unknown>,
  present: (name: string) => boolean = () => true,
): string | undefined {
  return TEXT_FIELDS.find((name) => typeof json[name] === 'string' && present(name));
}

/** One search match as the line strategies see: `path:line: content`. */
export function matchLine(match: unknown): string {
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return JSON.stringify(match);
  const m = new Map(Object.entries(match));
  return `${String(m.get('path') ?? '')}:${String(m.get('line') ?? '')}: ${String(m.get('content') ?? '')}`;
}
