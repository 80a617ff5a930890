import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/summarise/redact.js';
import { rng } from '../helpers/random.js';
import { fakeSecrets, nonSecretLines } from './fake-secrets.js';

/** The measured false-positive ceiling on real code and docs (docs/engine.md "Layer 1: the summariser"). */
const MAX_REDACTIONS_PER_MB = 1;

describe('redactSecrets: each shape', () => {
  const secretCases: [string, string, string][] = [
    ['an OpenAI key in an env line', 'OPENAI_API_KEY=sk-proj-AbCdEf1234567890abcdefGHIJ', 'OPENAI_API_KEY=[REDACTED]'],
    [
      'an Anthropic key in prose',
      'the key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 failed',
      'the key [REDACTED] failed',
    ],
    [
      'an AWS key pair',
      'AKIAIOSFODNN7EXAMPL3 aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      '[REDACTED] aws_secret_access_key = [REDACTED]',
    ],
    ['a GitHub token', 'push with ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'push with [REDACTED]'],
    ['a fine-grained GitHub token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '[REDACTED]'],
    ['a Slack token', 'SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'SLACK=[REDACTED]'],
    ['a Google API key', 'key AIzaSyA1234567890abcdefghijklmnopqrstuv used', 'key [REDACTED] used'],
    [
      'a JWT',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      '[REDACTED]',
    ],
    ['an Authorization header', 'Authorization: Bearer abc.def.ghi123', 'Authorization: Bearer [REDACTED]'],
    [
      'a bearer token in a curl command',
      'curl -H "authorization: bearer Zm9vYmFyYmF6cXV4MTIz" x',
      'curl -H "authorization: bearer [REDACTED]" x',
    ],
    [
      'a private key block',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdEFGH==\n-----END RSA PRIVATE KEY-----\nafter',
      '[REDACTED]\nafter',
    ],
    [
      'a private key block cut before its end',
      'x\n-----BEGIN PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdEFGH',
      'x\n[REDACTED]',
    ],
    [
      'the end of a private key block whose start was cut',
      'MIIEowIBAAKCAQEA\nabcdEFGH==\n-----END PRIVATE KEY-----\ndone',
      '[REDACTED]\ndone',
    ],
    ['a JSON password', '{"user": "a", "password": "hunter22"}', '{"user": "a", "password": "[REDACTED]"}'],
    ['a YAML secret', '  password: swordfish', '  password: [REDACTED]'],
    ['an env password of letters only', 'DB_PASSWORD=swordfish', 'DB_PASSWORD=[REDACTED]'],
    [
      'a password in a database URL',
      'postgres://admin:s3cr3t@db.local:5432/app',
      'postgres://admin:[REDACTED]@db.local:5432/app',
    ],
    ['a password with no user name in a URL', 'redis://:s3cr3t@cache:6379/0', 'redis://:[REDACTED]@cache:6379/0'],
    [
      'an access token in a URL query',
      'GET /cb?access_token=abc123XYZ&page=2',
      'GET /cb?access_token=[REDACTED]&page=2',
    ],
    ['an OAuth code in a URL query', '/cb?code=4/0AX4XfWh8Qk2LmN9pZ&state=xyz', '/cb?code=[REDACTED]&state=xyz'],
    ['a password flag', 'mysql --password=hunter22 -u root', 'mysql --password=[REDACTED] -u root'],
    ['a token flag with a space', 'run --token abc123def', 'run --token [REDACTED]'],
    [
      'a random value under a generic key name',
      '"session": "a8f5f167f44f4964e6c998dee827110c"',
      '"session": "[REDACTED]"',
    ],
    [
      'a random value under a name holding a secret word',
      'SECRET_KEY_BASE=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'SECRET_KEY_BASE=[REDACTED]',
    ],
    [
      'a .NET connection string',
      'Server=db;User Id=sa;Password=Pa55word!;',
      'Server=db;User Id=sa;Password=[REDACTED];',
    ],
    // Issue 19: the three that got through, and the ways a summary repeats a secret in prose.
    ['a short _PASS name', 'SMTP_PASS=Xq7vT2mNp9LkR4sW', 'SMTP_PASS=[REDACTED]'],
    ["mysql's glued -p", 'mysql -uroot -pS3cretPw9 app', 'mysql -uroot -p[REDACTED] app'],
    ['an & inside an env value', 'REDIS_PASSWORD=Ab3dEfg&h1JkLm', 'REDIS_PASSWORD=[REDACTED]'],
    ['sshpass -p', 'sshpass -p S3cretPw9 ssh root@web1', 'sshpass -p [REDACTED] ssh root@web1'],
    ['redis-cli -a', 'redis-cli -h cache -a S3cretPw9 ping', 'redis-cli -h cache -a [REDACTED] ping'],
    ['curl -u user:pass', 'curl -u admin:S3cretPw9 https://ci', 'curl -u admin:[REDACTED] https://ci'],
    ['docker login -p', 'docker login -u ci -p S3cretPw9 registry', 'docker login -u ci -p [REDACTED] registry'],
    ['"The … password is …" in prose', 'The SMTP password is Xq7vT2mNp9LkR4sW.', 'The SMTP password is [REDACTED].'],
    ['a bold markdown label', '**Token**: ghx9Qm2Lk7Tz', '**Token**: [REDACTED]'],
    ['a list item with a backticked value', '- **API key**: `Zk9m2Qx7Lp4v`', '- **API key**: `[REDACTED]`'],
    [
      'a value in parentheses',
      'the Redis password (`Ab3d&h1JkLm9`) is in the vault',
      'the Redis password (`[REDACTED]`) is in the vault',
    ],
    [
      '"changed to"',
      'The root password was changed to `u-b~nQwJPO4`.',
      'The root password was changed to `[REDACTED]`.',
    ],
    ['"with password …"', 'logged in as root with password S3cretPw9', 'logged in as root with password [REDACTED]'],
  ];
  it.each(secretCases)('replaces %s', (_name, input, expected) => {
    const r = redactSecrets(input);
    expect(r.text).toBe(expected);
    expect(r.count).toBe((expected.match(/\[REDACTED\]/g) ?? []).length);
  });

  const keptCases: [string, string][] = [
    ['a library name that starts like a key', 'sk-learn-compatible-estimator-api is a library'],
    ['a git commit hash', 'commit 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c'],
    ['a UUID', 'request 3fa85f64-5717-4562-b3fc-2c963f66afa6 done'],
    ['a type annotation', '  password: string;'],
    ['a Python type hint', 'def login(user: str, password: str) -> Token:'],
    ['a PascalCase type', '  token: Token'],
    ['a call', 'const token = getToken();'],
    ['a keyword argument passed through', 'login(user, password=password)'],
    ['a member access', 'const token = options.token;'],
    ['an env reference', 'curl -H "Authorization: Bearer $TOKEN" https://x'],
    ['a template reference', 'password: ${{ secrets.DB_PASSWORD }}'],
    ['a mask', 'password: ********'],
    ['prose about bearer tokens', 'Bearer authentication is required for this endpoint'],
    ['a help line', '  --token          The API token to use'],
    ['English after a credential word', 'The token is expired and the password is incorrect; the API key: required.'],
    ['a word with a digit after "is"', 'The returned token is base64url, 43 bytes of entropy'],
    ['an env var named after a credential word', 'Codex API key (CODEX_API_KEY → OPENAI_API_KEY)'],
    ['a call after a credential word', 'creds = resolve_runtime_credentials(refresh_if_expiring=True)'],
    ['an identifier after a colon', '{ token: userToken2, password: hashedPassword }'],
    ['mysql prompting for its password', 'mysql -u root -p app'],
    ['a bypass flag', 'git commit --no-verify --bypass x1y2z3w4'],
    ['a usage placeholder', 'run with --token TOKEN'],
    ['a count', '"max_tokens": 1500, "tokensIn": 42'],
    ['a comparison', 'if token == "--global":'],
    ['a mode string', "credentials: 'include'"],
    ['a symbolic constant', 'lastSignificantToken = "?NonExpressionParenEnd";'],
    ['an ssh remote', 'git@github.com:org/repo.git'],
    ['a hex colour', '--series-input-token:#ffe6cb;'],
    ['a cache key of words', 'cache_key = "skills_sh_sitemap_v1"'],
    ['minified code with && and ===', 'e&&e.key===o.key?``:(``+o.key).replace(A,`$&/`)'],
    ['an empty value', 'API_KEY='],
  ];
  it.each(keptCases)('leaves %s alone', (_name, input) => {
    expect(redactSecrets(input)).toEqual({ text: input, count: 0, values: [] });
  });

  it('is idempotent: a redacted text has nothing left to redact', () => {
    for (const s of fakeSecrets(7, 200)) {
      const once = redactSecrets(s.text);
      expect(redactSecrets(once.text)).toEqual({ text: once.text, count: 0, values: [] });
    }
  });

  it('stays linear on hostile text: runs without separators, key markers without bodies (a quadratic rule would outlast the test timeout)', () => {
    const inputs = [
      `token=${'a'.repeat(4_000_000)}`,
      'MIIEowIBAAKCAQEA\n'.repeat(250_000) + '-----END PRIVATE KEY',
      '-----BEGIN PRIVATE KEY-----'.repeat(150_000),
      'password=password='.repeat(200_000),
      `${'eyJ'.repeat(1_000_000)}.eyJ`,
    ];
    for (const input of inputs) expect(redactSecrets(input).text.length).toBeGreaterThan(0);
  });

  it('redacts a key block inside a JSON string (escaped line breaks)', () => {
    const r = redactSecrets(
      '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\nBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----\\n", "client_email": "a@b.iam"}',
    );
    expect(r.text).toBe('{"type": "service_account", "private_key": "[REDACTED]\\n", "client_email": "a@b.iam"}');
  });
});

describe('redactSecrets: properties', () => {
  it('never lets a seeded fake secret survive, whole or in part, wherever it sits in random text', () => {
    const filler = nonSecretLines(11, 400);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 6 }), (seed, n) => {
        const r = rng(seed);
        const secrets = fakeSecrets(seed, n);
        const lines: string[] = [];
        for (const s of secrets) {
          for (let i = Math.floor(r() * 4); i > 0; i--) lines.push(filler[Math.floor(r() * filler.length)] as string);
          // A third of them sit inside a tool call's JSON arguments, escaped.
          lines.push(r() < 0.33 ? JSON.stringify({ command: `cat <<EOF\n${s.text}\nEOF` }) : s.text);
        }
        const out = redactSecrets(lines.join(r() < 0.5 ? '\n' : '\r\n')).text;
        for (const s of secrets) {
          for (const form of [s.secret, JSON.stringify(s.secret).slice(1, -1)]) {
            expect(out, `${s.kind} survived`).not.toContain(form);
            // No 12-character piece of a long secret may survive either (a half-redacted token).
            if (form.length >= 16) {
              for (let i = 0; i + 12 <= form.length; i += 4)
                expect(out, `part of ${s.kind} survived`).not.toContain(form.slice(i, i + 12));
            }
          }
        }
      }),
      { seed: 20261124, numRuns: 400 },
    );
  });

  it('leaves generated non-secret lines (code, paths, hashes, UUIDs, help text) untouched', () => {
    const lines = nonSecretLines(42, 5000);
    const changed = lines.filter((l) => redactSecrets(l).count > 0);
    expect(changed).toEqual([]);
  });

  it(`replaces at most ${MAX_REDACTIONS_PER_MB} value per MB of this project's own code and docs`, () => {
    const { bytes, hits } = measure(['src', 'docs', '__init__.py', 'hmc_bridge']);
    expect(bytes).toBeGreaterThan(100_000);
    expect(hits / (bytes / 1e6)).toBeLessThanOrEqual(MAX_REDACTIONS_PER_MB);
  });

  it.skipIf(!existsSync('../shared/corpus'))(
    `replaces at most ${MAX_REDACTIONS_PER_MB} value per MB of the shared corpus of agent sessions`,
    () => {
      const { bytes, hits } = measure(['../shared/corpus']);
      expect(hits / (bytes / 1e6)).toBeLessThanOrEqual(MAX_REDACTIONS_PER_MB);
    },
  );
});

/** Redactions in the text files under `roots` (test folders left out: they hold fake secrets on purpose). */
function measure(roots: string[]): { bytes: number; hits: number } {
  let bytes = 0;
  let hits = 0;
  const walk = (p: string): void => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const f of readdirSync(p)) if (!['node_modules', 'dist', 'test', 'tests'].includes(f)) walk(join(p, f));
      return;
    }
    if (!/\.(ts|js|py|md|json|txt|yaml|yml)$/.test(p)) return;
    const text = readFileSync(p, 'utf8');
    bytes += text.length;
    hits += redactSecrets(text).count;
  };
  for (const r of roots) if (existsSync(r)) walk(r);
  return { bytes, hits };
}
