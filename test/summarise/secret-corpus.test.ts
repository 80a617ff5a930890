/**
 * Secrets never reach the summariser or the note (issue 19, finding 3), measured on a seeded
 * session in both phrasings: credentials as tool outputs show them (`KEY=value`, YAML, JSON,
 * command lines, URLs) and in natural prose around the value ("The SMTP password is …",
 * "**Token**: …"). Before the summary: what the request carries. After it: a model that knows every
 * secret some other way and writes each of them into its note, in prose and as `KEY=value`.
 * Nothing may survive, whole or as any 12-character piece. The figures are in docs/engine.md
 * "Layer 1: the summariser".
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import { rng } from '../helpers/random.js';
import { fakeSecrets, nonSecretLines, proseForm, type FakeSecret } from './fake-secrets.js';

/** Every form of `secret` that must not be found: itself, JSON-escaped, and 12-character pieces of a long one. */
function forms(secret: string): string[] {
  const out = [secret, JSON.stringify(secret).slice(1, -1)];
  for (const form of [...out])
    if (form.length >= 16) for (let i = 0; i + 12 <= form.length; i += 4) out.push(form.slice(i, i + 12));
  return out;
}

function survivors(text: string, secrets: readonly FakeSecret[]): FakeSecret[] {
  return secrets.filter((s) => forms(s.secret).some((f) => text.includes(f)));
}

/** A session of tool outputs, each holding one secret among ordinary lines; some in a call's arguments, some in the agent's text. */
function session(secrets: readonly FakeSecret[], phrasing: 'assigned' | 'prose', seed: number): Message[] {
  const r = rng(seed);
  const filler = nonSecretLines(seed + 1000, 400);
  const lines = (): string[] =>
    Array.from({ length: 1 + Math.floor(r() * 4) }, () => filler[Math.floor(r() * filler.length)] as string);
  const messages: Message[] = [
    { role: 'user', content: 'set up the mail and cache services and get the deploy green' },
  ];
  secrets.forEach((s, i) => {
    const said = phrasing === 'assigned' ? s.text : proseForm(s, seed + i);
    const id = `c${i}`;
    const where = r();
    if (where < 0.15) {
      messages.push({ role: 'assistant', content: `Noted: ${said}` });
      return;
    }
    const args =
      where < 0.3
        ? JSON.stringify({ path: 'notes.md', content: [...lines(), said].join('\n') })
        : JSON.stringify({ command: 'cat .env notes.md' });
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [
        { id, type: 'function', function: { name: where < 0.3 ? 'write_file' : 'terminal', arguments: args } },
      ],
    });
    const output =
      where < 0.3
        ? '{"bytes_written": 120}'
        : JSON.stringify({ output: [...lines(), said, ...lines()].join('\n'), exit_code: 0, error: null });
    messages.push({ role: 'tool', tool_call_id: id, content: output });
  });
  return messages;
}

/** The note a model writes when it repeats every secret it knows, in both phrasings. */
function leakyNote(secrets: readonly FakeSecret[], seed: number): string {
  const facts = secrets.flatMap((s, i) => [`- ${proseForm(s, seed * 7 + i)}`, `- \`${s.text.split('\n')[0]}\``]);
  return [
    '## Goal',
    'Mail and cache services configured',
    '## Done',
    '1. Wrote the .env and restarted the services.',
    '## Files',
    '- .env',
    '## Commands',
    '- `make deploy` passed',
    '## Facts',
    ...facts,
  ].join('\n');
}

async function measure(
  phrasing: 'assigned' | 'prose',
  seed: number,
  n: number,
): Promise<{ request: FakeSecret[]; note: FakeSecret[]; total: number }> {
  const secrets = fakeSecrets(seed, n);
  const requests: string[] = [];
  const summariser = createSummariser({
    complete: async (messages) => {
      requests.push(messages.map((m) => String(m.content)).join('\n'));
      return { text: leakyNote(secrets, seed), model: 'fake' };
    },
    timeoutMs: 10_000,
    log: () => {},
    requestBudgetChars: 400_000,
  });
  const result = await summariser.summarise({
    sessionId: 's',
    messages: session(secrets, phrasing, seed),
    maxTokens: 1500,
  });
  expect(result.ok).toBe(true);
  return {
    request: survivors(requests.join('\n'), secrets),
    note: result.ok ? survivors(`${result.text}\n${result.topic}`, secrets) : [],
    total: secrets.length,
  };
}

describe('secrets in a seeded session, before and after the summary', () => {
  it.each(['assigned', 'prose'] as const)(
    'none survives in the request or the note when they are written %s',
    async (phrasing) => {
      let total = 0;
      const before: string[] = [];
      const after: string[] = [];
      for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
        const m = await measure(phrasing, seed, 60);
        total += m.total;
        before.push(...m.request.map((s) => `${s.kind}: ${s.secret}`));
        after.push(...m.note.map((s) => `${s.kind}: ${s.secret}`));
      }
      expect(total).toBe(480);
      expect(before).toEqual([]);
      expect(after).toEqual([]);
    },
  );

  it('scrubs a value found in one place wherever else it appears (the password of REDIS_PASSWORD= alone in a log line)', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'why does the cache refuse us?' },
      { role: 'tool', tool_call_id: 'a', content: 'REDIS_PASSWORD=Ab3dEfg&h1JkLm\nREDIS_HOST=cache' },
      { role: 'tool', tool_call_id: 'b', content: 'AUTH failed for Ab3dEfg&h1JkLm at 10:02' },
    ];
    let request = '';
    const summariser = createSummariser({
      complete: async (ms) => {
        request = ms.map((m) => String(m.content)).join('\n');
        return {
          text: '## Goal\nCache auth\n## Done\n1. Found that Ab3dEfg&h1JkLm is refused.\n## Open\n- rotate it\n## Facts\n- host cache',
          model: 'fake',
        };
      },
      timeoutMs: 10_000,
      log: () => {},
    });
    const result = await summariser.summarise({ sessionId: 's', messages, maxTokens: 500 });
    expect(request).not.toContain('Ab3dEfg');
    expect(request).not.toContain('h1JkLm');
    expect(result.ok && result.text).not.toContain('Ab3dEfg');
  });
});
