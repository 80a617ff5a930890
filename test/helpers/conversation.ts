/** Builders for conversations in the OpenAI chat format Hermes uses, for engine tests. */
import { defaultConfig, type HmcConfig } from '../../src/config/keys.js';
import { Engine } from '../../src/engine/engine.js';
import type { ModelCallEdit } from '../../src/core/host-api.js';
import type { Message } from '../../src/core/message.js';
import type { EventPayload, EventSink, InspectRecord } from '../../src/events/types.js';

export function user(content: string): Message {
  return { role: 'user', content };
}

export function assistantCall(id: string, name: string, args: Record<string, unknown>): Message {
  return {
    role: 'assistant',
    content: '',
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  };
}

export function toolResult(id: string, name: string, content: unknown): Message {
  return { role: 'tool', tool_call_id: id, name, content };
}

export function reply(content: string): Message {
  return { role: 'assistant', content };
}

/** Hermes' terminal envelope. */
export function terminal(output: string, exitCode = 0): string {
  return JSON.stringify({ output, exit_code: exitCode, error: null });
}

/** Hermes' read_file envelope with `N|` gutters. */
export function readFile(lines: readonly string[]): string {
  return JSON.stringify({
    content: lines.map((l, i) => `${i + 1}|${l}`).join('\n'),
    total_lines: lines.length,
    file_size: lines.join('\n').length,
    truncated: false,
  });
}

export function config(patch: (c: HmcConfig) => void = () => {}): HmcConfig {
  const c = defaultConfig();
  patch(c);
  return c;
}

/**
 * Layer 1's mechanics without the cache's budget in the way: a pass may come at any call, no
 * clearing, the last 5 calls protected, 3 calls between summaries, and a summary asked whatever it
 * costs (its price rule has tests of its own).
 */
export function layer1Config(patch: (c: HmcConfig) => void = () => {}): HmcConfig {
  return config((c) => {
    c.cache.first_break_after = 0;
    c.cache.max_breaks_per_100_calls = 100;
    c.cache.min_batch_tokens = 0;
    c.strategies.clearing.enabled = false;
    c.background_compression.protect_recent_calls = 5;
    c.background_compression.cooldown_calls = 3;
    c.background_compression.min_return = 0;
    patch(c);
  });
}

export class RecordingSink implements EventSink {
  events: EventPayload[] = [];
  inspections: InspectRecord[] = [];
  emit(event: EventPayload): void {
    this.events.push(event);
  }
  inspect(record: InspectRecord): void {
    this.inspections.push(record);
  }
}

export function engine(c: HmcConfig = config(), sink: EventSink = new RecordingSink()): Engine {
  return new Engine({ config: () => c, stateDir: null, sink, recorder: null, log: () => {}, autoSettle: false });
}

/** A long build log with one error in the middle. */
/** Every view the engine answers to pre_model_call from now on, in order, as it is sent. */
export function recordViews(e: Engine): ModelCallEdit[][] {
  const views: ModelCallEdit[][] = [];
  const original = e.preModelCall.bind(e);
  e.preModelCall = (p) => {
    const r = original(p);
    views.push(r.edits);
    return r;
  };
  return views;
}

export function longLog(lines = 300, errorAt = 150): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++)
    out.push(
      i === errorAt
        ? 'src/app.ts:42:7 - error TS2322: Type string is not assignable to type number.'
        : `[${i}] compiling module ${i} of ${lines}... ok`,
    );
  return out.join('\n');
}

/** Python source with long function bodies. */
export function pythonSource(functions = 6, bodyLines = 12): string[] {
  const out = ['import os', 'import sys', '', 'CONSTANT = 42', ''];
  for (let f = 0; f < functions; f++) {
    out.push(`def function_${f}(a, b):`, `    """Docstring of function ${f}."""`);
    for (let i = 0; i < bodyLines; i++) out.push(`    value_${i} = a + b * ${i}`);
    out.push('    return value_0', '');
  }
  return out;
}
