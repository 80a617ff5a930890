/**
 * How the sidecar knows what a host can do (hosts/capabilities.ts): the host's own list wins,
 * whole; a host that names itself without a list gets what its name is known for; others nothing.
 */
import { describe, expect, it } from 'vitest';
import { hostCapabilities } from '../../src/hosts/capabilities.js';

describe('hostCapabilities', () => {
  it.each([
    [{ host: 'replay-bench' }, ['tool_calls']],
    [{ host: 'in-process' }, ['tool_calls']],
    [{ host: 'replay-bench', capabilities: ['append'] }, ['append']],
    [{ host: 'hermes', capabilities: ['append', 'model_call', 'tool_calls'] }, ['append', 'model_call', 'tool_calls']],
    [{ host: 'hermes' }, []],
    [{ host: 'unknown' }, []],
    [{}, []],
    [{ host: 42 }, []],
  ])('%j can %j', (hello, caps) => {
    expect([...hostCapabilities(hello)].sort()).toEqual([...caps].sort());
  });
});
