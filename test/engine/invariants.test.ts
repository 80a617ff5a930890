/**
 * The invariant checker (src/engine/turn/invariants.ts) on the failure rule: a cut that keeps what a
 * tool reported is fine, one that loses a failure is a violation. It reads failures as
 * truncation does: a passing test's line reports none, whatever its title names (a real Codex
 * session's jest run with titles such as `…invalid_json_異常系` was flagged before).
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { checkView } from '../../src/engine/turn/invariants.js';
import type { Message } from '../../src/core/message.js';

const config = defaultConfig();

function conversation(output: string, tool = 'shell'): Message[] {
  return [
    { role: 'user', content: 'run the tests' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: tool, arguments: '{"command": "npx jest"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: output },
  ];
}

const PASSING_RUN = [
  'PASS tests/unit/github/issue-ai-generator.test.ts (5.482 s)',
  '  IssueAIGenerator.generate - success and retry flows',
  '    ✓ issue_ai_generator_generate_success_正常系 (8 ms)',
  '    ✓ issue_ai_generator_generate_invalid_json_異常系 (26 ms)',
  '    ✓ issue_ai_generator_generate_missing_sections_異常系 (2 ms)',
  '    ✓ returns false when options.enabled is false (2 ms)',
  '',
  'Tests:       4 passed, 4 total',
].join('\n');

describe('checkView: failures', () => {
  it('a passing run whose test titles name failures reports none: collapsing its titles is no violation', () => {
    const raw = conversation(PASSING_RUN);
    const cut = PASSING_RUN.replace(
      / {4}✓ issue_ai_generator_generate_invalid_json.*\n.*\n.*\n/,
      '... (3 similar lines omitted)\n',
    );
    expect(cut.length).toBeLessThan(PASSING_RUN.length);
    expect(checkView(raw, [{ index: 2, content: cut }], config)).toEqual([]);
  });

  it('a failing run that loses its failure is a violation', () => {
    const failing = PASSING_RUN.replace(
      '    ✓ returns false when options.enabled is false (2 ms)',
      '    ✕ returns false when options.enabled is false (2 ms)',
    ).replace('4 passed', '1 failed, 3 passed');
    const raw = conversation(failing);
    const lost = failing
      .split('\n')
      .filter((l) => !l.includes('✕') && !l.startsWith('Tests:'))
      .join('\n');
    expect(checkView(raw, [{ index: 2, content: lost }], config)).toEqual([
      'message 2: a failure reported by shell was lost',
    ]);
    const kept = failing
      .split('\n')
      .filter((l) => !l.includes('異常系'))
      .join('\n');
    expect(checkView(raw, [{ index: 2, content: kept }], config)).toEqual([]);
  });

  it('inside a JSON envelope, a failure the envelope reports (its error field) counts too', () => {
    const raw = conversation(
      JSON.stringify({
        output: `${'line of output\n'.repeat(30)}done`,
        exit_code: 1,
        error: 'the process was terminated',
      }),
      'terminal',
    );
    const lost = JSON.stringify({ output: 'line of output\n... (29 lines omitted)\ndone', exit_code: 1, error: null });
    expect(checkView(raw, [{ index: 2, content: lost }], config)).toEqual([
      'message 2: a failure reported by terminal was lost',
    ]);
    const kept = JSON.stringify({
      output: 'line of output\n... (29 lines omitted)\ndone',
      exit_code: 1,
      error: 'the process was terminated',
    });
    expect(checkView(raw, [{ index: 2, content: kept }], config)).toEqual([]);
  });
});
