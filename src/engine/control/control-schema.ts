/**
 * The `hmc_control` tool as a model is shown it (OpenAI function format): the one copy. The
 * sidecar sends it in its `hello` answer; the build writes it to `dist/hmc_control.schema.json`,
 * which the Hermes bridge registers before any sidecar has started (docs/hermes.md "The
 * hmc_control schema").
 *
 * Invariant: every action the schema offers is one `controlAction` answers (CONTROL_HELP), and
 * every action it answers is offered except `help` and `config`, which are for people; the
 * analytics scopes and periods are the ones the action takes, from its own lists (issue 17,
 * finding 5: the schema offered five periods, the action took seven) (test/engine/control-schema.test.ts).
 */
import type { ToolSchema } from '../../core/host-api.js';
import { OUTPUT_BY, PERIODS, SCOPES } from '../../store/action.js';

/** The actions offered to the model, in the order its description lists them. */
export const MODEL_ACTIONS = [
  'status',
  'context',
  'stats',
  'index',
  'recall',
  'analytics',
  'dashboard',
  'sweep',
  'manual_set',
  'manual_status',
] as const;

export const CONTROL_TOOL_SCHEMA: ToolSchema = {
  name: 'hmc_control',
  description:
    'Control Hermes Context Manager (HMC), which shrinks tool outputs in what the model sees. ' +
    "Actions: status, context, stats, index (this session's summarised phases; query to search them, " +
    "scope=global for all sessions; phase=N for one phase's whole summary), " +
    `analytics (scope=${SCOPES.join('|')}, period=${PERIODS.join('|')}, ` +
    'limit, since, until, by), dashboard (sub_action=start|stop|status), sweep (count), manual_set (enabled), ' +
    'manual_status, recall (id, lines): the exact text a marker like (recall id=r... lines=41-160) stands for; ' +
    'of a summarised phase, its exact messages a page at a time (messages, or message with lines).',
  parameters: {
    type: 'object',
    properties: {
      action: {
        type: 'string',
        description: `${MODEL_ACTIONS.slice(0, -1).join(', ')} or ${MODEL_ACTIONS[MODEL_ACTIONS.length - 1]}`,
      },
      id: { type: 'string', description: 'recall: the id a marker prints (recall id=r...)' },
      lines: {
        type: 'string',
        description:
          "recall: the lines a marker names, e.g. 41-160 (omit for the whole output); with message, that message's lines",
      },
      messages: {
        type: 'string',
        description: 'recall of a summarised phase: which of its messages, e.g. 21-40 (an answer says which come next)',
      },
      message: {
        type: 'integer',
        description: 'recall of a summarised phase: one message too big for a page, read with lines',
      },
      count: { type: 'integer', description: 'sweep: how many recent tool outputs to prune' },
      enabled: { type: 'boolean', description: 'manual_set: turn manual mode on or off' },
      query: { type: 'string', description: 'index: words to search the summarised phases for' },
      phase: { type: 'integer', description: 'index: the phase number whose whole summary to show' },
      session: {
        type: 'string',
        description:
          "index: another session's id (from a scope=global hit) to list or read; analytics period=usage: the session (default: all in the window)",
      },
      scope: { type: 'string', description: `analytics: ${SCOPES.join(' or ')}; index: session (default) or global` },
      period: {
        type: 'string',
        description: `analytics: ${PERIODS.slice(0, -1).join(', ')} or ${PERIODS[PERIODS.length - 1]} (tool, strategy: input saved per tool, per strategy; model: cost per model; output: saved per tool output; work: recalls and re-reads; usage: the provider's own figures beside HMC's, cache breaks and why a call cost what it did)`,
      },
      limit: {
        type: 'integer',
        description: 'analytics: rows (days, weeks, months or sessions); index: hits of a search (default 10)',
      },
      since: { type: 'string', description: 'analytics: first day, YYYY-MM-DD (UTC)' },
      until: { type: 'string', description: 'analytics: last day, YYYY-MM-DD (UTC)' },
      by: { type: 'string', description: `analytics period=output: ${OUTPUT_BY.join(', ')}` },
      sub_action: { type: 'string', description: 'dashboard: start, stop or status' },
    },
    required: ['action'],
  },
};
