/**
 * Which text is source code, and in which language: file extensions and fence tags map to one of
 * the filtered languages; `.jsx`/`.tsx` are JavaScript/TypeScript with markup (JSX), which the
 * scanner then reads as markup so that component functions can be told apart.
 *
 * Invariant: detection is by exact table look-up only (a path's extension, a fence's tag), never
 * by sniffing content or scanning tool arguments for dotted words (reference §14 B5: "Next.js"
 * in a web search or `*.ts` in a grep glob made the original erase whole outputs).
 */

import { LANGUAGES, type Language } from '../../../core/languages.js';

export { LANGUAGES, type BraceLanguage, type Language } from '../../../core/languages.js';

/** File extensions (lower case, no dot). */
const EXTENSIONS: ReadonlyMap<string, Language> = new Map<string, Language>([
  ['py', 'python'],
  ['pyw', 'python'],
  ['pyi', 'python'],
  ['js', 'javascript'],
  ['mjs', 'javascript'],
  ['cjs', 'javascript'],
  ['ts', 'typescript'],
  ['mts', 'typescript'],
  ['cts', 'typescript'],
  ['jsx', 'javascript'],
  ['tsx', 'typescript'],
  ['rs', 'rust'],
  ['go', 'go'],
  ['php', 'php'],
  ['java', 'java'],
  ['cs', 'csharp'],
  ['kt', 'kotlin'],
  ['kts', 'kotlin'],
  ['ex', 'elixir'],
  ['exs', 'elixir'],
]);

/** Fence tags (the first word of a fence's info string, lower case). */
const FENCE_TAGS: ReadonlyMap<string, Language> = new Map<string, Language>([
  ['python', 'python'],
  ['python3', 'python'],
  ['py', 'python'],
  ['py3', 'python'],
  ['pyw', 'python'],
  ['pyi', 'python'],
  ['javascript', 'javascript'],
  ['js', 'javascript'],
  ['mjs', 'javascript'],
  ['cjs', 'javascript'],
  ['node', 'javascript'],
  ['typescript', 'typescript'],
  ['ts', 'typescript'],
  ['mts', 'typescript'],
  ['cts', 'typescript'],
  ['rust', 'rust'],
  ['rs', 'rust'],
  ['jsx', 'javascript'],
  ['tsx', 'typescript'],
  ['go', 'go'],
  ['golang', 'go'],
  ['php', 'php'],
  ['java', 'java'],
  ['csharp', 'csharp'],
  ['cs', 'csharp'],
  ['c#', 'csharp'],
  ['kotlin', 'kotlin'],
  ['kt', 'kotlin'],
  ['kts', 'kotlin'],
  ['elixir', 'elixir'],
  ['ex', 'elixir'],
  ['exs', 'elixir'],
]);

const JSX_FENCE_TAGS: ReadonlySet<string> = new Set(['jsx', 'tsx']);

const JSX_EXTENSIONS: ReadonlySet<string> = new Set(['jsx', 'tsx']);

/** The lower-cased extension of a path's last segment (`''` when it has none). */
function extensionOf(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1).trim();
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** The language of a source file, from its extension; null for anything else. */
export function languageForPath(path: string): Language | null {
  return EXTENSIONS.get(extensionOf(path)) ?? null;
}

/** True for `.jsx` / `.tsx` paths: JavaScript / TypeScript with markup. */
export function isJsxPath(path: string): boolean {
  return JSX_EXTENSIONS.has(extensionOf(path));
}

function fenceWord(tag: string): string {
  return tag
    .trim()
    .replace(/^\{?\.?/, '')
    .replace(/\}$/, '')
    .toLowerCase();
}

/** The language a fence tag names (```` ```python ````, ```` ```{.rust} ````, ```` ```TS ````), or null. */
export function languageForFenceTag(tag: string): Language | null {
  return FENCE_TAGS.get(fenceWord(tag)) ?? null;
}

/** True for fence tags naming markup-bearing JS/TS (```` ```tsx ````). */
export function isJsxFenceTag(tag: string): boolean {
  return JSX_FENCE_TAGS.has(fenceWord(tag));
}

/** Narrows a config string to a language the filter knows. */
export function isLanguage(name: string): name is Language {
  return (LANGUAGES as readonly string[]).includes(name);
}

/**
 * Markup in JS/TS: a closing tag, a self-closing tag, a tag with an attribute, or a fragment.
 * The first three alternatives are the original's (reference §3.3), widened to lower-case
 * element names where that cannot be a generic (`</div`, `<br/>`, `<div className=`); generics
 * such as `Promise<Response>`, `Map<K, V>` or `<T extends Base>` match none of them.
 */
const JSX_RE =
  /<\/[A-Za-z]|<[A-Za-z][\w.]*\s*\/>|<[A-Z][\w.]*\s+[A-Za-z_][\w-]*\s*=|<[a-z][\w-]*\s+(?:className|class|style|key|id|href|src|on[A-Z]\w*)\s*=|<>|<\/>/;

/** True when JS/TS text looks like it holds JSX (then it is left whole: braces in markup are not code). */
export function looksLikeJsx(text: string): boolean {
  // Every shape of JSX_RE opens with `<`: most code lines hold none, and includes() is cheap.
  return text.includes('<') && JSX_RE.test(text);
}
