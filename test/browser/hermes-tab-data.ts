/**
 * The data of hermes-tab.test.ts: the answers of HMC's API the tab is checked against, and the
 * analytics store it reads: three sessions (one a day ago, one 40 days ago, one of a model no
 * price table names) and the provider's usage of their calls.
 */
import { openStore, type UsageRecord } from '../../src/store/index.js';
import { rec } from '../store/fixtures/five.js';

export const UNKNOWN = 'acme-zeta-7';
export type Price = { unknown_model?: boolean; source: string };
export interface Models {
  models: {
    model: string;
    model_calls: number;
    input: number;
    sent: number;
    price: Price;
    cost: { spent: number; without_hmc: number; saved: number };
  }[];
  provider?: {
    model: string;
    calls: number;
    prompt_tokens: number;
    cache_read_tokens: number;
    cache_write_tokens: number;
    completion_tokens: number;
    price: Price;
    cost: { input: number; output: number };
  }[];
  currency: string;
}

export interface Analytics {
  total_saved: number;
  savings_pct: number;
  model_calls: number;
  total_sessions: number;
  estimated_cost_saved: { amount: number; currency: string };
}

/** Writes the tab's sessions and the provider's usage into the store at `path`, timed from now. */
export function seedStore(path: string): void {
  const store = openStore(path);
  const now = Date.now();
  store.recordSessions([
    rec({
      session_id: 'tab-a',
      started_at: now - 86_400_000,
      model: 'anthropic/claude-sonnet-4-20250514',
      input_tokens_raw: 80_000,
      input_tokens_hmc: 50_000,
      model_calls: 7,
      cached_raw: 60_000,
      cached_hmc: 35_000,
      by_strategy: { truncation: 30_000 },
      by_tool: { terminal: 30_000 },
      work: {
        recalls: 1,
        rereads: 1,
        elided: 5,
        outputs: [
          { tool: 'terminal', program: 'pytest', kind: 'shell', outputs: 5, tokens_raw: 10_000, tokens_sent: 2_500 },
        ],
      },
    }),
    rec({
      session_id: 'tab-old',
      started_at: now - 40 * 86_400_000,
      model: 'gpt-4.1',
      input_tokens_raw: 20_000,
      input_tokens_hmc: 12_000,
      model_calls: 3,
      by_strategy: { deduplication: 8_000 },
      by_tool: { read_file: 8_000 },
      work: {
        recalls: 0,
        rereads: 0,
        elided: 2,
        outputs: [{ tool: 'read_file', program: '', kind: 'read', outputs: 2, tokens_raw: 9_000, tokens_sent: 1_000 }],
      },
    }),
    // A model no price table names: named on the tab, given no money (issue 24).
    rec({
      session_id: 'tab-unknown',
      started_at: now - 2 * 86_400_000,
      model: UNKNOWN,
      input_tokens_raw: 9_000,
      input_tokens_hmc: 6_000,
      model_calls: 2,
      cached_raw: 4_000,
      cached_hmc: 2_000,
      by_strategy: { truncation: 3_000 },
      by_tool: { terminal: 3_000 },
    }),
  ]);
  // The provider's own usage of tab-a's calls and the unknown model's (Hermes' post_api_request).
  const call = (
    session_id: string,
    seq: number,
    model: string,
    prompt: number,
    read: number,
    write: number,
  ): UsageRecord => ({
    session_id,
    seq,
    at: now - 86_400_000 + seq,
    model,
    provider: 'p',
    prompt_tokens: prompt,
    completion_tokens: 300,
    cache_read_tokens: read,
    cache_write_tokens: write,
    reasoning_tokens: 0,
    hmc_input: prompt - 200,
    raw_input: prompt + 1_000,
    hmc_cached: read,
    call_id: `${session_id}:${seq}`,
    turn: 1,
    seen: true,
  });
  store.recordUsage([
    call('tab-a', 1, 'anthropic/claude-sonnet-4-20250514', 8_000, 0, 8_000),
    call('tab-a', 2, 'anthropic/claude-sonnet-4-20250514', 9_000, 7_800, 1_200),
    call('tab-unknown', 1, UNKNOWN, 3_000, 0, 3_000),
  ]);
  store.close();
}
