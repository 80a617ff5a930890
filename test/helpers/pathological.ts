/**
 * Pathological tool outputs (issue 19, finding 2): the inputs that made a stage of the pipeline
 * super-linear. Each generator makes about `size` characters, the same on every run (seeded), so
 * the bench's table (`npm run bench -- pathological`) and the tests see the same texts.
 */
import { rng } from './random.js';

export interface PathologicalInput {
  name: string;
  make: (size: number) => string;
}

function randomOf(alphabet: string, size: number, seed: number): string {
  const next = rng(seed);
  let out = '';
  for (let i = 0; i < size; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';

export const PATHOLOGICAL: readonly PathologicalInput[] = [
  { name: 'one letter', make: (n) => 'a'.repeat(n) },
  { name: 'one capital letter', make: (n) => 'A'.repeat(n) },
  { name: 'random letters', make: (n) => randomOf(LOWER, n, 1) },
  { name: 'DNA sequence', make: (n) => randomOf('ACGT', n, 2) },
  { name: 'one punctuation', make: (n) => '='.repeat(n) },
  { name: 'spaces then a word', make: (n) => `${' '.repeat(Math.max(0, n - 4))}done` },
  {
    name: 'progress bar (\\r)',
    make: (n) => {
      let out = '';
      for (let i = 0; out.length < n; i++) out += `\r[${'='.repeat(i % 50)}>${' '.repeat(49 - (i % 50))}] ${i % 100}%`;
      return out.slice(0, n);
    },
  },
  {
    name: 'one-line minified code',
    make: (n) => {
      const next = rng(3);
      let out = '';
      while (out.length < n) {
        const id = randomOf(LOWER, 1 + Math.floor(next() * 3), Math.floor(next() * 1e9));
        out += `var ${id}=function(${id}x){return ${id}x+${Math.floor(next() * 100)}};`;
      }
      return out.slice(0, n);
    },
  },
  {
    name: 'base64 blob',
    make: (n) => {
      const next = rng(4);
      const bytes = Buffer.alloc(Math.ceil((n * 3) / 4));
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
      return bytes.toString('base64').slice(0, n);
    },
  },
  {
    name: 'binary-looking text',
    make: (n) => {
      const next = rng(5);
      let out = '';
      for (let i = 0; i < n; i++) out += String.fromCharCode(Math.floor(next() * 256));
      return out;
    },
  },
  { name: 'deep JSON array', make: (n) => `${'['.repeat(Math.floor(n / 2))}${']'.repeat(Math.floor(n / 2))}` },
  {
    name: 'deep JSON object',
    make: (n) => {
      const depth = Math.floor(n / 7);
      return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    },
  },
  {
    name: '`yes` output',
    make: (n) => 'y\n'.repeat(Math.ceil(n / 2)).slice(0, n),
  },
  {
    name: 'one word per line, no repeat',
    make: (n) => {
      const next = rng(6);
      let out = '';
      while (out.length < n) out += `${randomOf(LOWER, 3 + Math.floor(next() * 8), Math.floor(next() * 1e9))}\n`;
      return out.slice(0, n);
    },
  },
];
