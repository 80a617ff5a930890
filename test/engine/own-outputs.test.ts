/**
 * HMC's own outputs (issue 17, finding 1): what `hmc_control` answers (a recall, the index, status…)
 * reaches the model exactly as made, in every view of every call: never compressed when it arrives,
 * never deduplicated, purged, swept, cleared or summarised away later, and never counted as savings.
 * In the issue a recall of 1,274 characters went out as 527, with a new omission marker inside.
 */
import { describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../src/config/keys.js';
import type { Message } from '../../src/core/message.js';
import { Engine } from '../../src/engine/engine.js';
import { isOwnTool } from '../../src/hosts/own-tool.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { NULL_SINK } from '../../src/events/types.js';
import type { Summariser, SummaryRequest, SummaryResult } from '../../src/summarise/types.js';
import { assistantCall, config, engine, terminal, toolResult, user } from '../helpers/conversation.js';

const S = 'own';

/** What Hermes stores for a tool call of `hmc_control`: the bridge's json.dumps of the answer (", " and ": "). */
function asHermesStores(answer: unknown): string {
  return JSON.stringify(answer, null, 1)
    .replace(/\n\s*/g, ' ')
    .replace(/\[ /g, '[')
    .replace(/ \]/g, ']')
    .replace(/\{ /g, '{')
    .replace(/ \}/g, '}');
}

/** Opens every list-wide rewrite at every call, so only protection can keep an output whole. */
function eager(patch: (c: HmcConfig) => void = () => {}): HmcConfig {
  return config((c) => {
    c.cache.first_break_after = 0;
    c.cache.max_breaks_per_100_calls = 100;
    c.cache.min_batch_tokens = 0;
    c.strategies.purge_errors.turns = 1;
    c.strategies.clearing.trigger_percent = 0.01;
    c.strategies.clearing.target_percent = 0.001;
    c.strategies.clearing.keep = 0;
    patch(c);
  });
}

/** A recall answer like the issue's: the lines of a test log, every one alike. */
async function recallAnswer(e: Engine): Promise<{ stored: string; log: string }> {
  const log = terminal(Array.from({ length: 200 }, (_, i) => `tests/test_mod.py::test_${i} PASSED`).join('\n'));
  const replaced = e.postToolCall({
    session_id: S,
    tool_name: 'terminal',
    args: { command: 'pytest' },
    result: log,
    tool_call_id: 'log',
  }).replace;
  const id = /recall id=(r[0-9a-f]{10})/.exec(String(replaced))?.[1];
  expect(id).toBeDefined();
  const stored = asHermesStores(await e.control({ session_id: S, args: { action: 'recall', id, lines: '1-120' } }));
  expect(stored.length).toBeGreaterThan(2000);
  return { stored, log };
}

describe('HMC\u2019s own outputs', () => {
  it('knows its tool by name in every host, namespaced by an MCP client too', () => {
    for (const name of [
      'hmc_control',
      'HMC_Control',
      'mcp__hmc__hmc_control',
      'hmc.hmc_control',
      'hmc/hmc_control',
      'hmc:hmc_control',
    ])
      expect(isOwnTool(name)).toBe(true);
    for (const name of ['terminal', 'hmc_controller', 'my_hmc_control', 'control', ''])
      expect(isOwnTool(name)).toBe(false);
  });

  for (const tool of ['hmc_control', 'mcp__hmc__hmc_control']) {
    it(`a recall answer (${tool}) is never shortened when it arrives, and counts as no saving`, async () => {
      const e = engine();
      const { stored } = await recallAnswer(e);
      expect(
        e.postToolCall({
          session_id: S,
          tool_name: tool,
          args: { action: 'recall' },
          result: stored,
          tool_call_id: 'rc',
        }),
      ).toEqual({});
      e.settle();
      const answer = await e.control({ session_id: S, args: { action: 'stats' } });
      expect(Object.keys((answer.input_saved as { by_tool: object }).by_tool)).not.toContain(tool);
    });
  }

  it('goes out byte-exact in every model call: no dedup, error purge, sweep or clearing, however eager', async () => {
    const e = new Engine({
      config: () => eager(),
      stateDir: null,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
      autoSettle: false,
    });
    const { stored, log } = await recallAnswer(e);
    const error = asHermesStores({ error: 'recall: nothing is kept under id r0000000000 in this session' });
    const messages: Message[] = [
      { role: 'system', content: 'You are a coding agent.' },
      user('run the tests'),
      assistantCall('log', 'terminal', { command: 'pytest' }),
      toolResult('log', 'terminal', log),
      assistantCall('rc1', 'hmc_control', { action: 'recall' }),
      toolResult('rc1', 'hmc_control', stored),
      assistantCall('bad', 'hmc_control', { action: 'recall', id: 'r0000000000' }),
      toolResult('bad', 'hmc_control', error),
      assistantCall('rc2', 'hmc_control', { action: 'recall' }),
      toolResult('rc2', 'hmc_control', stored),
      { role: 'assistant', content: 'The tests pass.' },
      user('and again'),
      assistantCall('t2', 'terminal', { command: 'pytest' }),
      toolResult('t2', 'terminal', terminal('1 failed\nError: boom', 1)),
      { role: 'assistant', content: 'One failed.' },
      user('once more'),
    ];
    for (const [id, tool, result] of [
      ['rc1', 'hmc_control', stored],
      ['bad', 'hmc_control', error],
      ['rc2', 'hmc_control', stored],
      ['t2', 'terminal', terminal('1 failed\nError: boom', 1)],
    ] as const) {
      e.postToolCall({
        session_id: S,
        tool_name: tool,
        args: {},
        result,
        tool_call_id: id,
        ...(tool === 'terminal' ? { is_error: true } : {}),
      });
    }
    await e.control({ session_id: S, args: { action: 'sweep', count: 20 } });
    const host = new InProcessHost(e);
    const own = [5, 7, 9];
    for (let call = 0; call < 3; call++) {
      const view = e.preModelCall({ session_id: S, messages, context_length: 8_000 }).edits;
      for (const i of own)
        expect(
          view.find((x) => x.index === i),
          `message ${i} at call ${call}`,
        ).toBeUndefined();
      // Something else was rewritten: the pass ran and only protection kept HMC's answers whole.
      expect(view.some((x) => x.index === 3)).toBe(true);
      host.apply(S, messages, view);
      host.restore(S);
      messages.push({ role: 'assistant', content: `call ${call}` }, user(`go on ${call}`));
    }
    e.settle();
    const stats = await e.control({ session_id: S, args: { action: 'stats' } });
    expect(Object.keys((stats.input_saved as { by_tool: object }).by_tool)).not.toContain('hmc_control');
  });

  it('is left as it is inside a range layer 1 summarises', async () => {
    const summariser: Summariser = {
      async summarise(request: SummaryRequest): Promise<SummaryResult> {
        return {
          ok: true,
          text: `## Goal\nfix the build\n## Done\n${request.messages.length} messages`,
          topic: 'build',
          model: 'm',
          tokensIn: 100,
          tokensOut: 10,
          redactions: 0,
        };
      },
    };
    const c = eager((x) => {
      x.strategies.clearing.enabled = false;
      x.strategies.deduplication.enabled = false;
      x.background_compression.protect_recent_calls = 5;
      x.background_compression.cooldown_calls = 3;
      x.background_compression.min_return = 0; // this test is about what a summary keeps, not whether it pays
    });
    const e = new Engine({
      config: () => c,
      stateDir: null,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
      autoSettle: false,
      summariser: () => summariser,
    });
    const status = asHermesStores({ status: `HMC [auto] | ctx: 12% | saved: 1.0K tokens | ${'x'.repeat(400)}` });
    const page = (i: number) =>
      terminal(Array.from({ length: 40 }, (_, k) => `step ${i}.${k} ${'detail '.repeat(12)}`).join('\n'));
    const all: Message[] = [{ role: 'system', content: 'You are a coding agent.' }, user('fix the build')];
    for (let i = 0; i < 30; i++) {
      if (i === 3)
        all.push(assistantCall('own', 'hmc_control', { action: 'status' }), toolResult('own', 'hmc_control', status));
      all.push(
        assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
        toolResult(`c${i}`, 'terminal', page(i)),
      );
    }
    const live: Message[] = [];
    for (const m of all) {
      if (m.role === 'assistant') {
        e.preModelCall({ session_id: S, messages: live, context_length: 60_000 });
        await new Promise((resolve) => setImmediate(resolve));
      }
      live.push(m);
    }
    const phase = e.sessions.get(S)?.layer1.phases[0];
    const at = all.findIndex((m) => m.role === 'tool' && m.tool_call_id === 'own');
    expect(phase && phase.from < at && phase.to > at).toBe(true);
    const view = e.preModelCall({ session_id: S, messages: all, context_length: 60_000 }).edits;
    expect(view.some((x) => x.index === phase?.from)).toBe(true);
    expect(view.find((x) => x.index === at)).toBeUndefined();
  });
});
