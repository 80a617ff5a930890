/**
 * Fake secrets for layer 1's redaction tests: a seeded generator of credentials in the shapes
 * real ones have (vendor prefixes, JWTs, key blocks, passwords) and the places they turn up in a
 * coding agent's tool output (.env files, YAML, JSON, URLs, headers, command lines, prose), plus
 * text that holds no secret but looks close (code, paths, commit hashes, UUIDs).
 *
 * Invariant: deterministic for a seed; every `secret` is the exact value that must not survive.
 */
import { rng } from '../helpers/random.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}-_`;
const HEX = '0123456789abcdef';
/** Characters a generated password may hold after its first (which is alphanumeric). */
const PASSWORD_CHARS = `${ALNUM}!#%^*_+-=~.`;
/** Characters safe inside a URL's userinfo or query without encoding. */
const URL_SAFE = `${ALNUM}-_.~`;

export interface FakeSecret {
  kind: string;
  /** The value that must not survive redaction. */
  secret: string;
  /** A line (or block) of tool output holding it. */
  text: string;
}

export function fakeSecrets(seed: number, n: number): FakeSecret[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const str = (alphabet: string, len: number): string =>
    Array.from({ length: len }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
  const between = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const b64url = (s: string): string => Buffer.from(s).toString('base64url');
  /** A password as a password manager or a person with a policy makes one: a letter or digit first, a digit somewhere. */
  const password = (alphabet = PASSWORD_CHARS): string => {
    const body = str(ALNUM, 1) + str(alphabet, between(7, 23));
    return /\d/.test(body) ? body : `${body}${between(0, 9)}`;
  };

  const makers: (() => FakeSecret)[] = [
    () => {
      const s = `sk-${str(ALNUM, 48)}`;
      return {
        kind: 'openai',
        secret: s,
        text: pick([
          `OPENAI_API_KEY=${s}`,
          `export OPENAI_API_KEY="${s}"`,
          `client = OpenAI(api_key="${s}")`,
          `Using key ${s} for the request`,
          `{"apiKey":"${s}"}`,
        ]),
      };
    },
    () => {
      const s = `sk-proj-${str(B64URL, 64)}`;
      return {
        kind: 'openai-project',
        secret: s,
        text: pick([
          `OPENAI_API_KEY=${s}`,
          `openai.api_key = '${s}'`,
          `curl https://api.openai.com/v1/models -H "Authorization: Bearer ${s}"`,
        ]),
      };
    },
    () => {
      const s = `sk-ant-api03-${str(B64URL, 93)}AA`;
      return {
        kind: 'anthropic',
        secret: s,
        text: pick([`ANTHROPIC_API_KEY=${s}`, `x-api-key: ${s}`, `anthropic:\n  api_key: ${s}`]),
      };
    },
    () => {
      const s = `AKIA${str(UPPER_DIGITS, 16)}`;
      return {
        kind: 'aws-key-id',
        secret: s,
        text: pick([
          `aws_access_key_id = ${s}`,
          `AWS_ACCESS_KEY_ID=${s}`,
          `"AccessKeyId": "${s}",`,
          `credentials for ${s} expired`,
        ]),
      };
    },
    () => {
      const s = str(B64, 40);
      return {
        kind: 'aws-secret',
        secret: s,
        text: pick([
          `aws_secret_access_key = ${s}`,
          `AWS_SECRET_ACCESS_KEY=${s}`,
          `"SecretAccessKey": "${s}",`,
          `export AWS_SECRET_ACCESS_KEY='${s}'`,
        ]),
      };
    },
    () => {
      const s = pick([
        `ghp_${str(ALNUM, 36)}`,
        `gho_${str(ALNUM, 36)}`,
        `github_pat_${str(ALNUM, 22)}_${str(ALNUM, 59)}`,
      ]);
      return {
        kind: 'github',
        secret: s,
        text: pick([
          `GITHUB_TOKEN=${s}`,
          `git clone https://${s}@github.com/acme/app.git`,
          `remote: token ${s} has expired`,
          `gh auth login --with-token <<< ${s}`,
        ]),
      };
    },
    () => {
      const s = `${pick(['xoxb', 'xoxp', 'xoxa', 'xoxr'])}-${str('0123456789', 12)}-${str('0123456789', 13)}-${str(ALNUM, 24)}`;
      return {
        kind: 'slack',
        secret: s,
        text: pick([`SLACK_BOT_TOKEN=${s}`, `slack:\n  token: "${s}"`, `posting with ${s}`]),
      };
    },
    () => {
      const s = `AIza${str(B64URL, 35)}`;
      return {
        kind: 'google',
        secret: s,
        text: pick([
          `GOOGLE_API_KEY=${s}`,
          `https://maps.googleapis.com/maps/api/geocode/json?address=x&key=${s}`,
          `"api_key": "${s}"`,
        ]),
      };
    },
    () => {
      const header = b64url(JSON.stringify({ alg: pick(['HS256', 'RS256']), typ: 'JWT' }));
      const payload = b64url(
        JSON.stringify({ sub: str(ALNUM, 12), iat: between(1.6e9, 1.8e9), role: pick(['admin', 'user']) }),
      );
      const s = `${header}.${payload}.${str(B64URL, 43)}`;
      return {
        kind: 'jwt',
        secret: s,
        text: pick([
          `Cookie: session=${s}`,
          `{"access_token": "${s}", "expires_in": 3600}`,
          `JWT=${s}`,
          `got token ${s}`,
        ]),
      };
    },
    () => {
      const s = str(`${ALNUM}._-`, between(32, 64)).replace(/^[._-]/, 'a') + str(ALNUM, 1);
      return {
        kind: 'bearer',
        secret: s,
        text: pick([
          `Authorization: Bearer ${s}`,
          `curl -H "Authorization: Bearer ${s}" https://api.example.com/v2/jobs`,
          `headers = {"Authorization": "Bearer ${s}"}`,
          `> authorization: Bearer ${s}`,
        ]),
      };
    },
    () => {
      const kind = pick(['RSA ', 'EC ', 'OPENSSH ', '']);
      const lines = Array.from({ length: between(8, 25) }, () => str(B64, 64));
      const secret = lines.join('\n');
      const block = `-----BEGIN ${kind}PRIVATE KEY-----\n${secret}\n-----END ${kind}PRIVATE KEY-----`;
      return r() < 0.3
        ? { kind: 'pem-json', secret: lines.join('\\n'), text: `"private_key": "${block.split('\n').join('\\n')}\\n",` }
        : { kind: 'pem', secret, text: block };
    },
    () => {
      const s = password();
      return {
        kind: 'password',
        secret: s,
        text: pick([
          `DB_PASSWORD=${s}`,
          `password: ${s}`,
          `  password: "${s}"`,
          `{"username": "admin", "password": "${s}"}`,
          `mysql -u root --password=${s} app`,
          `psql --password ${s}`,
          `secret: ${s}`,
          `client_secret='${s}'`,
          `POSTGRES_PASSWORD=${s}`,
        ]),
      };
    },
    () => {
      const s = password(URL_SAFE);
      return {
        kind: 'url-password',
        secret: s,
        text: pick([
          `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`,
          `redis://:${s}@cache:6379/0`,
          `amqp://guest:${s}@rabbit/`,
          `https://deploy:${s}@git.example.com/acme/app.git`,
          `GET https://api.example.com/v1/items?access_token=${s}&page=2`,
          `Server=db;Database=app;User Id=sa;Password=${s};`,
        ]),
      };
    },
    () => {
      const s = pick([str(HEX, 64), str(HEX, 128), str(B64, 44)]);
      return {
        kind: 'keyed-random',
        secret: s,
        text: pick([
          `SECRET_KEY_BASE=${s}`,
          `"signing_key": "${s}"`,
          `session_key: ${s}`,
          `WEBHOOK_SECRET=${s}`,
          `hmac = "${s}"`,
        ]),
      };
    },
    () => {
      const s = pick([
        `hf_${str(ALNUM, 34)}`,
        `npm_${str(ALNUM, 36)}`,
        `glpat-${str(B64URL, 20)}`,
        `pypi-${str(B64URL, 80)}`,
        `sk_live_${str(ALNUM, 24)}`,
      ]);
      return {
        kind: 'other-vendor',
        secret: s,
        text: pick([`TOKEN=${s}`, `//registry.example.com/:_authToken=${s}`, `using ${s}`]),
      };
    },
    // Issue 19: the shapes that got through (a short `_PASS` name, mysql's glued -p, an `&` inside).
    () => {
      const s = str(ALNUM, 16);
      return {
        kind: 'short-pass-name',
        secret: s,
        text: pick([`SMTP_PASS=${s}`, `MAIL_PASS=${s}`, `export DB_PASS=${s}`, `MYSQL_PWD=${s}`, `smtp_pass: ${s}`]),
      };
    },
    () => {
      const s = password(`${ALNUM}_+-=~.`);
      return {
        kind: 'command-password',
        secret: s,
        text: pick([
          `mysql -uroot -p${s} app`,
          `mysqldump -u root -p${s} app > dump.sql`,
          `sshpass -p ${s} ssh deploy@web1`,
          `redis-cli -h cache -a ${s} ping`,
          `curl -u admin:${s} https://ci.example.com/api/json`,
          `docker login -u ci -p ${s} registry.example.com`,
        ]),
      };
    },
    () => {
      const s = `${password(ALNUM)}&${password(ALNUM)}`;
      return {
        kind: 'ampersand-password',
        secret: s,
        text: pick([`REDIS_PASSWORD=${s}`, `SMTP_PASSWORD=${s}`, `export DB_PASSWORD=${s}`]),
      };
    },
  ];
  return Array.from({ length: n }, () => pick(makers)());
}

/** What a credential of each kind is called in prose. */
const LABELS: Record<string, readonly string[]> = {
  password: ['password', 'database password', 'DB password', 'root password'],
  'url-password': ['database password', 'password'],
  'short-pass-name': ['SMTP password', 'mail password', 'DB password'],
  'command-password': ['MySQL root password', 'password', 'registry password'],
  'ampersand-password': ['Redis password', 'SMTP password'],
  'keyed-random': ['secret key', 'signing secret', 'webhook secret'],
  github: ['GitHub token', 'token'],
  slack: ['Slack bot token', 'token'],
  jwt: ['session token', 'JWT'],
  bearer: ['bearer token', 'access token'],
};

/**
 * The secret said in prose, as a summary or a note repeats one (issue 19: "The SMTP password is
 * …", "**Token**: …"): one of the phrasings people and models write.
 */
export function proseForm(secret: FakeSecret, seed: number): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const label = pick(LABELS[secret.kind] ?? ['API key', 'access key', 'API token']);
  const Label = label.charAt(0).toUpperCase() + label.slice(1);
  const s = secret.secret;
  if (secret.kind.startsWith('pem')) return `**${Label}**:\n${secret.text}`;
  return pick([
    `The ${label} is ${s}.`,
    `**${Label}**: ${s}`,
    `- ${Label}: \`${s}\``,
    `- **${Label}**: \`${s}\``,
    `${Label} → ${s}`,
    `the ${label} (\`${s}\`) is in the vault`,
    `set the ${label} to ${s} and restarted`,
    `The ${label} was changed to \`${s}\`.`,
    `${Label}: "${s}"`,
  ]);
}

/** Lines that hold no secret but look close to ones that do. */
export function nonSecretLines(seed: number, n: number): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const str = (alphabet: string, len: number): string =>
    Array.from({ length: len }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
  const uuid = (): string =>
    `${str(HEX, 8)}-${str(HEX, 4)}-4${str(HEX, 3)}-${pick(['8', '9', 'a', 'b'])}${str(HEX, 3)}-${str(HEX, 12)}`;
  const word = (): string =>
    pick([
      'parse',
      'token',
      'config',
      'session',
      'user',
      'build',
      'cache',
      'key',
      'value',
      'range',
      'index',
      'summary',
      'secret',
      'auth',
    ]);
  const makers: (() => string)[] = [
    () => `commit ${str(HEX, 40)}`,
    () => `${str(HEX, 7)} Fix ${word()} handling in ${word()}.ts`,
    () => `request id ${uuid()} finished in ${Math.floor(r() * 900)} ms`,
    () => `"id": "${uuid()}",`,
    () => `/home/dev/src/${word()}-${word()}/lib/${word()}.ts:${Math.floor(r() * 400)}:${Math.floor(r() * 80)}`,
    () => `  const ${word()}Count = tokens.length;`,
    () => `  max_tokens: ${Math.floor(r() * 4000)},`,
    () => `  token: string;`,
    () => `  password?: string;`,
    () => `    password: str`,
    () => `def login(user: str, password: str) -> Token:`,
    () => `const token = await getToken(${word()});`,
    () => `if (!apiKey) throw new Error('no API key configured');`,
    () => `return jwt.sign(payload, secret, { expiresIn: '1h' });`,
    () => `sha256:${str(HEX, 64)}`,
    () => `"integrity": "sha512-${str(B64, 86)}==",`,
    () =>
      `  "resolved": "https://registry.example.org/${word()}/-/${word()}-${Math.floor(r() * 9)}.${Math.floor(r() * 20)}.${Math.floor(r() * 9)}.tgz",`,
    () => `git@github.com:acme/${word()}.git`,
    () => `https://github.com/acme/app/blob/${str(HEX, 40)}/src/${word()}.ts#L${Math.floor(r() * 300)}`,
    () => `ok ${Math.floor(r() * 90)} - ${word()} ${word()} returns the ${word()}`,
    () => `FAIL test/${word()}.test.ts > ${word()} > rejects an expired token`,
    () => `Error: ENOENT: no such file or directory, open '/tmp/${word()}-${str(HEX, 6)}/${word()}.json'`,
    () => `  tokensIn: number;`,
    () => `Bearer authentication is required for ${word()} requests`,
    () => `Set the OPENAI_API_KEY environment variable to your key.`,
    () => `    --token <TOKEN>      An access token (default: $GITHUB_TOKEN)`,
    () => `  headers: { Authorization: \`Bearer \${token}\` },`,
    () => `password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())`,
    () => `export const SESSION_KEY = 'hmc.session';`,
    () => `image: node:20-alpine@sha256:${str(HEX, 64)}`,
    () => `data:image/png;base64,${str(B64, 120)}`,
    () => `  "version": "${Math.floor(r() * 9)}.${Math.floor(r() * 30)}.${Math.floor(r() * 30)}",`,
    () => `PATH=/usr/local/bin:/usr/bin:/bin`,
    () => `HOME=/home/dev`,
  ];
  return Array.from({ length: n }, () => pick(makers)());
}

const ECHO_B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ECHO_HEX = '0123456789abcdef';

function echoStr(r: () => number, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}

/** Issue 26, finding 6: key body lines shown without BEGIN/END, and a GCP service-account key's fields, in every phrasing. */
export function echoSeeds(seed: number): FakeSecret[] {
  const r = rng(seed);
  const body = Array.from({ length: 6 }, () => echoStr(r, ECHO_B64, 64));
  const last = `${echoStr(r, ECHO_B64, 42)}==`;
  const keyId = echoStr(r, ECHO_HEX, 40);
  const gcpKey = echoStr(r, ECHO_B64, 64);
  const email = `deploy-bot@acme-prod-${seed}.iam.gserviceaccount.com`;
  const sa = JSON.stringify(
    {
      type: 'service_account',
      project_id: `acme-prod-${seed}`,
      private_key_id: keyId,
      private_key: `-----BEGIN PRIVATE KEY-----\n${gcpKey}\n-----END PRIVATE KEY-----\n`,
      client_email: email,
      client_id: '104729384756102938475',
    },
    null,
    2,
  );
  return [
    {
      kind: 'pem-body-lines',
      secret: body[1] as string,
      text: `$ sed -n 2,4p deploy.pem\n${body[1]}\n${body[2]}\n${body[3]}`,
    },
    { kind: 'pem-last-line', secret: last, text: `$ tail -2 id_rsa | head -1\n${last}` },
    { kind: 'pem-body-indented', secret: body[4] as string, text: `    ${body[4]}\n    ${body[5]}` },
    {
      kind: 'pem-body-prose',
      secret: body[5] as string,
      text: `The key file starts with ${body[5]} after its header.`,
    },
    { kind: 'gcp-json', secret: keyId, text: sa },
    { kind: 'gcp-json-key', secret: gcpKey, text: sa },
    { kind: 'gcp-prose-id', secret: keyId, text: `The service account's private key id is ${keyId}.` },
    { kind: 'gcp-prose-id-colon', secret: keyId, text: `- Private key ID: \`${keyId}\`` },
    {
      kind: 'gcp-fields-prose',
      secret: keyId,
      text: `Service account deploy-bot uses private_key_id ${keyId} (type service_account).`,
    },
  ];
}
