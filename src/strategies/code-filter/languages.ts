/**
 * Which text is source code, and in which language: file extensions and fence tags map to one of
 * the five filtered languages; JSX is recognised so that JS/TS holding markup is left whole.
 *
 * Invariant: detection is by exact table look-up only (a path's extension, a fence's tag), never
 * by sniffing content or scanning tool arguments for dotted words (reference §14 B5: "Next.js"
 * in a web search or `*.ts` in a grep glob made the original erase whole outputs).
 */

/** A language the code filter understands. */
export type Language = 'python' | 'javascript' | 'typescript' | 'rust' | 'go';

/** The languages whose structure is brace-delimited (everything but Python). */
export type BraceLanguage = Exclude<Language, 'python'>;

export const LANGUAGES: readonly Language[] = ['python', 'javascript', 'typescript', 'rust', 'go'];

/** File extensions (lower case, no dot). `.jsx`/`.tsx` are deliberately absent: markup is not filtered. */
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
  ['rs', 'rust'],
  ['go', 'go'],
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
  ['go', 'go'],
  ['golang', 'go'],
]);

const JSX_EXTENSIONS: ReadonlySet<string> = new Set(['jsx', 'tsx']);

/** The lower-cased extension of a path's last segment (`''` when it has none). */
function extensionOf(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1).trim();
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** The language of a source file, from its extension; null for anything else (including .jsx/.tsx). */
export function languageForPath(path: string): Language | null {
  return EXTENSIONS.get(extensionOf(path)) ?? null;
}

/** True for `.jsx` / `.tsx` paths, which are never filtered. */
export function isJsxPath(path: string): boolean {
  return JSX_EXTENSIONS.has(extensionOf(path));
}

/** The language a fence tag names (```` ```python ````, ```` ```{.rust} ````, ```` ```TS ````), or null. */
export function languageForFenceTag(tag: string): Language | null {
  const word = tag.trim().replace(/^\{?\.?/, '').replace(/\}$/, '').toLowerCase();
  return FENCE_TAGS.get(word) ?? null;
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
  return JSX_RE.test(text);
}
