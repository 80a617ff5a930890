/**
 * Passwords on the command lines of programs that take them in their own way (issue 19, finding
 * 3): `mysql -uroot -p<password>` (the value glued to `-p`), `sshpass -p`, `redis-cli -a`,
 * `curl -u user:pass`, `docker login -p`, `openssl … -passin pass:…`. A name-based rule cannot see
 * these: the flag is a letter.
 *
 * Invariants: pure; a value that is a reference (`$MYSQL_PWD`, `"${PASS}"`) is kept; every
 * quantifier is bounded and each rule starts at a program's name, so no input makes one quadratic.
 */
import { isPlaceholder } from './secret-values.js';

/** Replaces `value`, returning what stands in its place (redact.ts counts it). */
export type Hit = (value: string) => string;

/** The rest of one shell command after a program's name (bounded, never past a pipe or a line end). */
const REST = String.raw`[^\n|;&]{0,400}?`;
/** A value as a shell word: quoted (without its quotes), or bare. */
const WORD = String.raw`(?:'([^'\n]{1,400})'|"([^"\n]{1,400})"|([^\s'"\x60;|&\\]{1,400}))`;
/** A program's name starts a word, or follows an escaped line break (a command inside a JSON string). */
const START = String.raw`(?:(?<![\w/-])|(?<=\\[nrt]))`;

const RULES: readonly RegExp[] = [
  // mysql, mysqldump, mariadb…: `-p` with the password glued to it (`-p` alone prompts).
  new RegExp(String.raw`${START}(?:mysql\w{0,10}|mariadb[\w-]{0,10})\b${REST}[ \t]-p${WORD}`, 'g'),
  new RegExp(String.raw`${START}sshpass\b${REST}[ \t]-p[ \t]{0,8}${WORD}`, 'g'),
  new RegExp(String.raw`${START}redis-cli\b${REST}[ \t](?:-a|--pass)[ \t]{1,8}${WORD}`, 'g'),
  new RegExp(
    String.raw`${START}(?:docker|podman|buildah|skopeo|helm|nerdctl)\b${REST}\blogin\b${REST}[ \t]-p[ \t]{1,8}${WORD}`,
    'g',
  ),
  // curl -u user:pass, --user user:pass, --proxy-user user:pass (the user name is kept).
  new RegExp(
    String.raw`${START}(?:curl|wget|http|https)\b${REST}[ \t](?:-u|-U|--user|--proxy-user|--http-user)[ \t=]{1,8}["']?[^\s:'"\x60\\]{1,200}:([^\s'"\x60@,;\\]{1,400})`,
    'g',
  ),
  // openssl's pass phrases: -passin pass:…, -passout pass:…, -pass pass:…, -k …
  /(?<![\w-])-pass(?:in|out)?[ \t]{1,8}["']?pass:([^\s'"]{1,400})/g,
];

/** Replaces the passwords of the rules above; the command around them stays. */
export function redactCommandSecrets(text: string, hit: Hit): string {
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule, (m: string, ...groups: unknown[]) => {
      const value = groups.slice(0, 3).find((g): g is string => typeof g === 'string') ?? '';
      if (!value || isPlaceholder(value) || value.startsWith('$')) return m;
      // The value is the match's last characters (then its closing quote, when quoted).
      const end = m.lastIndexOf(value);
      return `${m.slice(0, end)}${hit(value)}${m.slice(end + value.length)}`;
    });
  }
  return out;
}
