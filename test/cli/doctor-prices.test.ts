/**
 * `hmc doctor`'s prices check (issue 24): a model the analytics database holds that no price table
 * names is an unknown model, priced at pricing.default_*: named, with the fix; a database whose
 * models are all priced says where the prices came from (Hermes' own price counts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPrices } from '../../src/cli/doctor-db.js';
import { defaultConfig } from '../../src/config/keys.js';
import { openStore } from '../../src/store/index.js';
import { rec } from '../store/helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

function db(models: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-prices-'));
  dirs.push(dir);
  const path = join(dir, 'analytics.db');
  const store = openStore(path);
  models.forEach(
    (model, i) =>
      void store.recordSession(
        rec({
          session_id: `s${i}`,
          model,
          started_at: 1_700_000_000_000,
          input_tokens_raw: 10,
          input_tokens_hmc: 5,
          by_strategy: { dedup: 5 },
        }),
      ),
  );
  store.recordHostPrices([
    {
      model: 'hermes-priced-x',
      price: { input: 1, output: 2, cache_read: 0.1, cache_write: 1, source: 'provider_models_api' },
      at: 1,
    },
  ]);
  store.close();
  return path;
}

describe('hmc doctor: prices', () => {
  it('names an unknown model, priced at the defaults, with the fix', async () => {
    const check = await checkPrices(db(['claude-sonnet-4', 'my-local-llama']), defaultConfig().pricing);
    expect(check).toMatchObject({ name: 'prices', ok: false });
    expect(check?.detail).toContain('my-local-llama');
    expect(check?.detail).not.toContain('claude-sonnet-4');
    expect(check?.fix).toContain('pricing.models');
  });

  it('passes when every model is priced, saying from where', async () => {
    const check = await checkPrices(db(['claude-sonnet-4', 'hermes-priced-x']), defaultConfig().pricing);
    expect(check).toMatchObject({ name: 'prices', ok: true });
    expect(check?.detail).toContain('built-in, hermes');
  });

  it('has nothing to say without a database', async () => {
    expect(await checkPrices(join(tmpdir(), 'none', 'analytics.db'), defaultConfig().pricing)).toBeNull();
  });
});
