/**
 * What an agent asked about a file it read must still be there after the code filter (the harm
 * the hidden judge counts): facts in signatures, constants, types, config values and error text.
 * Each fixture (test/fixtures/reads/<name>.txt) is read the way three agents read files (Claude Code's Read
 * with its reminder, Hermes' read_file JSON, Codex's `sed -n` through a shell), compressed by the
 * engine, and checked: it shrank, and every listed fact survived verbatim.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/keys.js';
import { compressOutput } from '../../../src/engine/turn/compress.js';
import { protectionFor } from '../../../src/engine/session/protection.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'reads');

const FACTS: Record<string, readonly string[]> = {
  'billing.ts': [
    "DEFAULT_CURRENCY = 'EUR'",
    'MAX_ATTEMPTS = 4',
    'RETRY_DELAYS_MS = [250, 1000, 4000]',
    "endpoint: 'https://pay.example.test/v2'",
    'timeoutMs: 8000',
    "Paid = 'paid'",
    'ratePercent: number',
    'export type Money = { cents: number; currency: string };',
    'constructor(private readonly gateway: Gateway, private readonly rules: TaxRule[])',
    'subtotal(items: LineItem[]): number',
    'taxFor(country: string, subtotalCents: number): number',
    'async charge(invoice: Invoice, attempt = 1): Promise<InvoiceStatus>',
    "'BillingService needs at least one tax rule'",
    '`no tax rule for country ${country}`',
    '`payment failed after ${MAX_ATTEMPTS} attempts: ${String(err)}`',
    'function sleep(ms: number): Promise<void>',
  ],
  'models.py': [
    'MAX_ITEMS = 250',
    'DEFAULT_CURRENCY = "USD"',
    '"gold": Decimal("0.10")',
    'class OrderError(Exception):',
    'sku: str',
    'unit_price: Decimal',
    'def __init__(self, customer_id: str, items: list[LineItem], tier: str | None = None) -> None:',
    'f"an order holds at most {MAX_ITEMS} items, got {len(items)}"',
    'def subtotal(self) -> Decimal:',
    '"""Sum of quantity times unit price."""',
    'f"unknown discount tier {self.tier!r}"',
    'def total(self) -> Decimal:',
  ],
  'server.go': [
    'const DefaultPort = 8087',
    'var ReadTimeout = 15 * time.Second',
    'errors.New("inventory: sku not found")',
    'Quantity int    `json:"quantity"`',
    'Get(sku string) (Item, error)',
    'func New(store Store) *Server {',
    'func (s *Server) Reserve(sku string, quantity int) (Item, error) {',
    '"reserve %s: only %d left, %d asked"',
    'fmt.Errorf("reserve %s: %w", sku, err)',
  ],
  'lib.rs': [
    'pub const DEFAULT_LIMIT: u32 = 120;',
    'Duration::from_secs(60)',
    '#[error("rate limit exceeded for {0}: retry after {1:?}")]',
    'pub fn new(limit: u32) -> Self {',
    'pub fn check(&mut self, client: &str, now: Instant) -> Result<u32, LimitError> {',
  ],
  'UserService.java': [
    'MAX_RETRIES = 3',
    'public Optional<User> find(',
    'boolean fresh) throws IOException {',
    '"id must not be null"',
    'private static <T extends Comparable<T>> T max(List<T> items)',
    'void onEvent(String e);',
    'public record Pair(String a, String b)',
    '@Autowired',
  ],
  'UserService.cs': [
    'MaxRetries = 3',
    'public string Name { get; set; } = "users";',
    '[Route("api/[controller]")]',
    'public async Task<ActionResult<User>> GetAsync(string id, CancellationToken ct = default)',
    '"id is required"',
    'public int Twice(int x) => x * 2;',
    'public record Person(string First, string Last);',
    'public enum Color { Red, Green, Blue }',
  ],
  'UserService.kt': [
    'const val MAX_RETRIES = 3',
    'override suspend fun find(id: String): User?',
    '"id must not be blank"',
    'fun twice(x: Int) = x * 2',
    'data class User(val id: String, val name: String)',
    'const val NAME = "users"',
  ],
  'UserService.php': [
    'public const MAX_RETRIES = 3;',
    'public function find(string $id): ?User',
    '"id must not be empty"',
    "#[Route('/users/{id}')]",
    'function top_level(int $a): int',
    'declare(strict_types=1);',
  ],
  'accounts.ex': [
    '@min_password_length 12',
    '@max_login_attempts 5',
    '@lockout_minutes 15',
    '@type login_error :: :invalid_credentials | :locked',
    '@spec register(map()) :: {:ok, User.t()} | {:error, Ecto.Changeset.t()}',
    'def login(email, password) when is_binary(email) do',
    '"account locked for #{@lockout_minutes} minutes after #{@max_login_attempts} failed logins"',
    'defp validate_password(changeset) do',
    '"admins cannot be deleted through the shop"',
    '"must be at least 12 characters"',
  ],
  'UserList.tsx': [
    'export const PAGE_SIZE = 20;',
    'export function formatName(user: User): string {',
    "Don't panic: no users",
    '<ul className="users">',
    'export default function UserList({ users }: { users: User[] }) {',
    '{formatName(u)} / {u.email}',
  ],
};

const config = defaultConfig();
const ctx = { config, protection: protectionFor(config), manual: false, log: () => {} };

/** The file as three agents receive a read of it: the tool call and the result text. */
function reads(
  name: string,
  text: string,
): { agent: string; tool: string; args: Record<string, unknown>; content: string; inner: (c: string) => string }[] {
  const lines = text.split('\n');
  const path = `/repo/src/${name}`;
  const same = (c: string) => c;
  return [
    {
      agent: 'Claude Code',
      tool: 'Read',
      args: { file_path: path },
      content: `${lines.map((l, i) => `${String(i + 1).padStart(6)}\u2192${l}`).join('\n')}\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks malicious.\n</system-reminder>\n`,
      inner: same,
    },
    {
      agent: 'Hermes',
      tool: 'read_file',
      args: { path },
      content: JSON.stringify({
        content: lines.map((l, i) => `${i + 1}|${l}`).join('\n'),
        total_lines: lines.length,
        file_size: text.length,
        truncated: false,
      }),
      inner: (c) => (JSON.parse(c) as { content: string }).content,
    },
    {
      agent: 'Codex',
      tool: 'shell',
      args: { command: ['bash', '-lc', `sed -n '1,400p' ${path}`] },
      content: text,
      inner: same,
    },
  ];
}

describe('code filter: the facts an agent asks about survive', () => {
  for (const [name, facts] of Object.entries(FACTS)) {
    // Stored as `<name>.txt` so that the type checker and linters leave the samples alone.
    const text = readFileSync(join(FIXTURES, `${name}.txt`), 'utf8');
    for (const read of reads(name, text)) {
      it(`${name} read by ${read.agent}: shrinks, and keeps signatures, constants, types, config values and error text`, () => {
        const result = compressOutput(read.content, { tool: read.tool, args: read.args }, ctx);
        expect(result.steps.map((s) => s.strategy)).toEqual(['code_filter']);
        expect(result.content.length).toBeLessThan(read.content.length);
        const seen = read.inner(result.content);
        for (const fact of facts) expect([name, seen.includes(fact)]).toEqual([name, true]);
      });
    }
  }
});
