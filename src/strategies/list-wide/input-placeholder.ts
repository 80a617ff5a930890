/**
 * The short arguments a cleared call is sent with (input-clearing.ts): still a JSON object, with
 * every small argument as it was (the path, flags, a description), the bulky ones **left out**,
 * and what stands for them: their size, for a shell command its outline and the files it wrote,
 * the later call that superseded it, and how to get the original back.
 *
 *   {"file_path":"src/app.ts","cleared":{"content":"120 lines, 4210 characters"},
 *    "original":"read the file, or hmc_control action=recall id=r3f9a21c0de"}
 *
 * Why the bulky keys are left out rather than given a marker text: models copy the shape of their
 * own earlier calls. A `content` holding a marker is a call a model could repeat, and the marker
 * would be written into a file without any error; a call without `content` fails the tool's
 * argument check at once, loudly and harmlessly (docs/engine.md, "Clearing the inputs of answered
 * calls").
 *
 * Invariant: pure and deterministic (the same call, reason and id always give the same bytes, so
 * a view once sent is sent again word for word); null when the arguments already use a key this
 * form adds (unsure: the call is left whole).
 */
import type { BulkArgument, FileInput } from '../../hosts/tool-inputs.js';
import type { InputClearing } from './input-clearing.js';

/** The keys the short form adds beside the small arguments. */
const ADDED_KEYS = ['cleared', 'outline', 'writes', 'superseded_by', 'original'];

/** The short arguments (a JSON object's text) of a call whose bulk is cleared, or null. */
export function shortArguments(
  args: Readonly<Record<string, unknown>>,
  input: FileInput,
  clearing: InputClearing,
  recallId: string,
): string | null {
  if (ADDED_KEYS.some((k) => k in args)) return null;
  const bulk = new Set(input.bulk.map((b) => b.key));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) if (!bulk.has(key)) out[key] = value;
  out.cleared = Object.fromEntries(input.bulk.map((b) => [b.key, sizeText(b)]));
  if (input.outline !== undefined) out.outline = input.outline;
  if (input.writes && input.writes.length > 0)
    out.writes = Object.fromEntries(input.writes.map((w) => [w.path, sizeText(w)]));
  if (clearing.reason === 'superseded') out.superseded_by = clearing.by;
  // An old write or edit is in the file as it is now; a superseded one only in the recall copy.
  const file = clearing.reason === 'old' && input.paths.length > 0 ? 'read the file, or ' : '';
  out.original = `${file}hmc_control action=recall id=${recallId}`;
  return JSON.stringify(out);
}

function sizeText(size: Pick<BulkArgument, 'lines' | 'chars' | 'items'>): string {
  const first = size.items !== undefined ? plural(size.items, 'item') : plural(size.lines, 'line');
  return `${first}, ${plural(size.chars, 'character')}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
