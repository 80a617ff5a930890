/**
 * The demo agent: scripted turns whose tool calls run for real on this project's files, driven
 * through the hooks exactly as a host would (pre_llm_call per user turn, pre/post_tool_call per
 * call, on_session_end per turn, finalize at the end), with the conversation edited in place and
 * restored. Nothing is pre-recorded: every output is produced when the demo runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InProcessHost } from '../hosts/in-process.js';
import type { HmcHostApi } from '../core/host-api.js';
import type { Message } from '../core/message.js';
import { readFileTool, searchFilesTool, terminalTool } from './tools.js';

export type ToolStep =
  | { tool: 'read_file'; path: string; offset?: number; limit?: number }
  | { tool: 'search_files'; pattern: string; path?: string }
  | { tool: 'terminal'; command: string; args: string[] };

export interface ScriptTurn {
  user: string;
  /** What the assistant says before each call. */
  steps: { say: string; call: ToolStep }[];
  reply: string;
}

export interface DemoScript {
  name: string;
  turns: ScriptTurn[];
}

const git = (args: string[]): ToolStep => ({ tool: 'terminal', command: 'git', args });

/** The sessions the demo plays: a tour of the engine, a review of the bridge, a build check. */
export function demoScripts(root: string): DemoScript[] {
  const inGit = existsSync(join(root, '.git'));
  const history: ToolStep[] = inGit
    ? [git(['log', '--oneline', '-n', '60']), git(['status'])]
    : [{ tool: 'terminal', command: 'ls', args: ['-la'] }];
  return [
    {
      name: 'engine-tour',
      turns: [
        {
          user: 'Give me an overview of this project and how the engine is organised.',
          steps: [
            { say: 'Let me list the project first.', call: { tool: 'terminal', command: 'ls', args: ['-la'] } },
            { say: 'Reading the README.', call: { tool: 'read_file', path: 'README.md' } },
            {
              say: 'Does the old entry point still load?',
              call: { tool: 'terminal', command: 'node', args: ['-e', "require('./lib/legacy-entry.js')"] },
            },
            { say: 'Now the engine itself.', call: { tool: 'read_file', path: 'src/engine/engine.ts' } },
            {
              say: 'And where the exports are.',
              call: { tool: 'search_files', pattern: '^export (function|class|const)', path: 'src' },
            },
          ],
          reply:
            'The engine lives in src/engine; strategies are one file each in src/strategies. The legacy entry point is gone (that require fails).',
        },
        {
          user: 'How are tool outputs parsed?',
          steps: [
            {
              say: 'The envelope module handles that.',
              call: { tool: 'read_file', path: 'src/hosts/outputs/envelope.ts' },
            },
            { say: 'Checking recent history.', call: history[0] as ToolStep },
          ],
          reply: 'Envelopes keep the JSON valid and put line-number gutters back on kept lines.',
        },
        {
          user: 'Run a quick check of the toolchain.',
          steps: [
            { say: 'Node first.', call: { tool: 'terminal', command: 'node', args: ['--version'] } },
            {
              say: 'Looking at the engine again to compare.',
              call: { tool: 'read_file', path: 'src/engine/engine.ts' },
            },
          ],
          reply: 'Node is fine.',
        },
        {
          user: 'Which strategies exist?',
          steps: [
            {
              say: 'Searching the strategies folder.',
              call: { tool: 'search_files', pattern: '^export function', path: 'src/strategies' },
            },
            { say: 'Truncation in detail.', call: { tool: 'read_file', path: 'src/strategies/single/truncation.ts' } },
          ],
          reply: 'Short-circuit, code filter, truncation, dedup and error purge.',
        },
        {
          user: 'List the exports once more, then wrap up.',
          steps: [
            {
              say: 'Same search as before.',
              call: { tool: 'search_files', pattern: '^export (function|class|const)', path: 'src' },
            },
            { say: 'And the history.', call: history[0] as ToolStep },
          ],
          reply: 'Done: that is the tour.',
        },
        {
          user: 'Thanks. One more look at the status?',
          steps: [
            {
              say: 'Checking the working tree.',
              call: history[1] ?? ({ tool: 'terminal', command: 'ls', args: ['src'] } as ToolStep),
            },
          ],
          reply: 'All good.',
        },
      ],
    },
    {
      name: 'bridge-review',
      turns: [
        {
          user: 'Review the Hermes bridge.',
          steps: [
            { say: 'The bridge is Python, in hmc_bridge/.', call: { tool: 'read_file', path: 'hmc_bridge/bridge.py' } },
            { say: 'And the protocol dispatcher.', call: { tool: 'read_file', path: 'src/protocol/dispatch.ts' } },
          ],
          reply: 'The bridge frames, sends, applies and restores; decisions are in TypeScript.',
        },
        {
          user: 'Where are timeouts handled?',
          steps: [
            { say: 'Searching for timeouts.', call: { tool: 'search_files', pattern: 'timeout', path: '.' } },
            { say: 'Rereading the bridge.', call: { tool: 'read_file', path: 'hmc_bridge/bridge.py' } },
          ],
          reply: 'Per-call timeouts live in the bridge; the sidecar never blocks.',
        },
      ],
    },
    {
      name: 'store-check',
      turns: [
        {
          user: 'Check the analytics store code.',
          steps: [
            { say: 'Listing the store folder.', call: { tool: 'terminal', command: 'ls', args: ['-la', 'src/store'] } },
            { say: 'Reading the store.', call: { tool: 'read_file', path: 'src/store/db.ts' } },
            { say: 'Queries too.', call: { tool: 'read_file', path: 'src/store/queries.ts' } },
          ],
          reply: 'One row per session and strategy, upserted: nothing is counted twice.',
        },
        {
          user: 'And the migrations?',
          steps: [{ say: 'Reading them.', call: { tool: 'read_file', path: 'src/store/migrations.ts' } }],
          reply: 'Numbered migrations, each in a transaction.',
        },
      ],
    },
  ];
}

export interface PlayOptions {
  /** The hooks to play through (a runtime's engine). */
  engine: HmcHostApi;
  root: string;
  sessionId: string;
  script: DemoScript;
  /** Milliseconds between steps (0 plays as fast as the tools run). */
  pace: number;
  model?: string;
  signal?: AbortSignal;
}

/** Plays one scripted session through the hooks; returns the (restored, raw) conversation. */
export async function playSession(opts: PlayOptions): Promise<Message[]> {
  const { engine, root, sessionId, script, pace } = opts;
  const host = new InProcessHost(engine);
  const extra = { model: opts.model ?? 'demo-model', platform: 'demo', context_length: 128_000 };
  const conversation: Message[] = [
    { role: 'system', content: 'You are a careful coding agent working in this repository.' },
  ];
  let calls = 0;
  const wait = async () => {
    if (pace > 0 && !opts.signal?.aborted) await new Promise((r) => setTimeout(r, pace));
  };
  for (const turn of script.turns) {
    if (opts.signal?.aborted) break;
    conversation.push({ role: 'user', content: turn.user });
    host.preLlmCall(sessionId, conversation, extra);
    // Each model call is sent as a host with per-call hooks sends it (Hermes 0.19's middleware), so
    // it is counted with HMC's cache model and its money priced with the prompt cache (issue 24).
    host.preModelCall(sessionId, conversation, extra);
    for (const step of turn.steps) {
      if (opts.signal?.aborted) break;
      const id = `call_${script.name}_${++calls}`;
      const args = argsOf(step.call);
      conversation.push({
        role: 'assistant',
        content: step.say,
        tool_calls: [{ id, type: 'function', function: { name: step.call.tool, arguments: JSON.stringify(args) } }],
      });
      host.preToolCall(sessionId, step.call.tool, args, id);
      const result = await runTool(root, step.call);
      host.postToolCall(sessionId, step.call.tool, args, result, id);
      conversation.push({ role: 'tool', tool_call_id: id, name: step.call.tool, content: result });
      host.preModelCall(sessionId, conversation, extra);
      await wait();
    }
    conversation.push({ role: 'assistant', content: turn.reply });
    host.onSessionEnd(sessionId, conversation);
    await wait();
  }
  host.onSessionFinalize(sessionId, conversation);
  return conversation;
}

function argsOf(call: ToolStep): Record<string, unknown> {
  switch (call.tool) {
    case 'read_file':
      return {
        path: call.path,
        ...(call.offset ? { offset: call.offset } : {}),
        ...(call.limit ? { limit: call.limit } : {}),
      };
    case 'search_files':
      return { pattern: call.pattern, path: call.path ?? '.', target: 'content' };
    case 'terminal':
      return { command: [call.command, ...call.args.map((a) => (/\s|'/.test(a) ? JSON.stringify(a) : a))].join(' ') };
  }
}

async function runTool(root: string, call: ToolStep): Promise<string> {
  switch (call.tool) {
    case 'read_file':
      return readFileTool(root, call.path, call.offset, call.limit);
    case 'search_files':
      return searchFilesTool(root, call.pattern, call.path);
    case 'terminal':
      return terminalTool(root, call.command, call.args);
  }
}
