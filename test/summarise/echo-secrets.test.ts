/**
 * A summariser that echoes what it read (issue 26, finding 6): when a tool output shows part of a
 * private key (body lines without their BEGIN/END lines, as `sed -n 2,4p key.pem` prints them) or a
 * GCP service-account key's fields, in its JSON and in prose, the note repeats them. Before: 2 of 19
 * seeded shapes survived into the note (and so the index file, SQLite, the session file and
 * /api/phases). Every phrasing here, echoed back whole: none may survive, whole or as any
 * 12-character piece.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import { echoSeeds, fakeSecrets, proseForm, type FakeSecret } from './fake-secrets.js';

function forms(secret: string): string[] {
  const out = [secret, JSON.stringify(secret).slice(1, -1)];
  for (const form of [...out])
    if (form.length >= 16) for (let i = 0; i + 12 <= form.length; i += 4) out.push(form.slice(i, i + 12));
  return out;
}

const survivors = (text: string, secrets: readonly FakeSecret[]): string[] =>
  secrets.filter((s) => forms(s.secret).some((f) => text.includes(f))).map((s) => s.kind);

/** The summariser echoes its whole request back as its note (under the headings a note needs). */
async function echoed(secrets: readonly FakeSecret[], prose: boolean): Promise<{ request: string[]; note: string[] }> {
  const messages: Message[] = [{ role: 'user', content: 'rotate the deploy key and fix the service account' }];
  secrets.forEach((s, i) => {
    const said = prose ? proseForm(s, i) : s.text;
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: `c${i}`,
          type: 'function',
          function: { name: 'terminal', arguments: JSON.stringify({ command: 'cat keys' }) },
        },
      ],
    });
    messages.push({
      role: 'tool',
      tool_call_id: `c${i}`,
      content: JSON.stringify({ output: `reading\n${said}\ndone`, exit_code: 0, error: null }),
    });
  });
  let request = '';
  const summariser = createSummariser({
    complete: async (ms) => {
      request = ms.map((m) => String(m.content)).join('\n');
      return {
        text: [
          '## Goal',
          'Rotate the deploy key',
          '## Done',
          '1. Read the keys.',
          '## Facts',
          ...request.split('\n').map((l) => `- ${l}`),
        ].join('\n'),
        model: 'echo',
      };
    },
    timeoutMs: 10_000,
    log: () => {},
    requestBudgetChars: 400_000,
  });
  const result = await summariser.summarise({ sessionId: 's', messages, maxTokens: 1500 });
  expect(result.ok).toBe(true);
  return {
    request: survivors(request, secrets),
    note: result.ok ? survivors(`${result.text}\n${result.topic}`, secrets) : [],
  };
}

describe('an echoing summariser', () => {
  it.each([false, true])('repeats no key body line nor service-account field (prose: %s)', async (prose) => {
    const left: string[] = [];
    let total = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      const secrets = [...echoSeeds(seed), ...fakeSecrets(seed, 20)];
      total += secrets.length;
      const m = await echoed(secrets, prose);
      left.push(...m.request.map((k) => `request ${k}`), ...m.note.map((k) => `note ${k}`));
    }
    expect(total).toBe(145);
    expect(left).toEqual([]);
  });
});
