/**
 * Web pages, docs, help texts and reports: the answer the agent fetched them for is a plain
 * sentence with no failure word, anywhere in the page. Cutting the middle loses it whatever
 * keywords a cut keeps.
 */
import { bash, type HarmCase } from './case.js';
import { noise, text } from './noise.js';

const article = (seed: number, answer: string, at = 60, n = 130): string[] => {
  const body = noise.prose(n, seed);
  const out: string[] = ['# Rate limits and quotas', ''];
  body.forEach((line, i) => {
    if (i === at) out.push(answer);
    out.push(line);
    if (i % 9 === 8) out.push('', `## Section ${Math.floor(i / 9) + 2}`, '');
  });
  return out;
};

export const proseCases: HarmCase[] = [
  {
    name: 'Hermes web_extract markdown keeps a plain answer in the middle',
    klass: 'prose',
    tool: 'web_extract',
    args: { urls: ['https://docs.example.com/api/limits'] },
    output: text(article(121, 'Requests are limited to 600 per minute for each access token.')),
    keep: ['Requests are limited to 600 per minute for each access token.'],
  },
  {
    name: 'WebFetch page keeps its middle paragraph',
    klass: 'prose',
    tool: 'WebFetch',
    args: { url: 'https://hexdocs.pm/shop/Shop.Config.html', prompt: 'What is the default pool size?' },
    output: text(article(122, 'The default pool size is 10 connections; set POOL_SIZE to change it.')),
    keep: ['The default pool size is 10 connections'],
  },
  {
    name: 'MCP fetch tool keeps its middle paragraph',
    klass: 'prose',
    tool: 'mcp__fetch__fetch',
    args: { url: 'https://example.org/changelog' },
    output: text(
      'Contents of https://example.org/changelog:',
      article(123, 'Version 4.2 moved the session cookie to SameSite=Lax by default.'),
    ),
    keep: ['Version 4.2 moved the session cookie to SameSite=Lax by default.'],
  },
  {
    name: 'curl of an HTML page keeps its middle text',
    klass: 'prose',
    ...bash('curl -s https://status.example.com/incidents/812'),
    output: text(
      '<!DOCTYPE html>',
      '<html lang="en"><head><meta charset="utf-8"><title>Incident 812</title></head>',
      '<body>',
      noise.prose(60, 124).map((l) => `<p>${l}</p>`),
      '<p>The affected region was eu-west-1 and the window was 09:12 to 09:47 UTC.</p>',
      noise.prose(60, 125).map((l) => `<p>${l}</p>`),
      '</body></html>',
    ),
    keep: ['The affected region was eu-west-1 and the window was 09:12 to 09:47 UTC.'],
  },
  {
    name: 'lynx -dump of a docs page keeps its middle text',
    klass: 'prose',
    ...bash('lynx -dump https://www.postgresql.org/docs/16/runtime-config-connection.html'),
    output: text(
      noise.prose(55, 126).map((l) => `   ${l}`),
      '   tcp_keepalives_idle (integer): Specifies the number of seconds of inactivity after which TCP should send a keepalive message to the client.',
      noise.prose(55, 127).map((l) => `   ${l}`),
      '',
      'References',
      Array.from({ length: 10 }, (_, i) => `   ${i + 1}. https://www.postgresql.org/docs/16/page${i}.html`),
    ),
    keep: ['Specifies the number of seconds of inactivity after which TCP should send a keepalive'],
  },
  {
    name: 'browser snapshot keeps a middle text node',
    klass: 'prose',
    tool: 'browser_snapshot',
    args: {},
    output: text(
      '- document:',
      Array.from({ length: 60 }, (_, i) => `  - link "Nav item ${i}" [ref=e${i}]`),
      '  - paragraph: Your order #88213 will ship on 14 May from the Leipzig warehouse.',
      Array.from({ length: 60 }, (_, i) => `  - listitem: Recommended product ${i}`),
    ),
    keep: ['Your order #88213 will ship on 14 May from the Leipzig warehouse.'],
  },
  {
    name: 'man page keeps an option in the middle',
    klass: 'prose',
    ...bash('man rsync | col -b'),
    output: text(
      'RSYNC(1)                          User Commands                         RSYNC(1)',
      '',
      'OPTIONS',
      Array.from({ length: 55 }, (_, i) => [`       --option-${i}`, `              ${noise.prose(1, 200 + i)[0]}`])
        .flat()
        .slice(0, 70),
      '       --partial',
      '              By default, rsync will delete any partially transferred file if the transfer is interrupted. This option keeps partially transferred files.',
      Array.from({ length: 40 }, (_, i) => [
        `       --more-${i}`,
        `              ${noise.prose(1, 300 + i)[0]}`,
      ]).flat(),
    ),
    keep: ['This option keeps partially transferred files.'],
  },
  {
    name: '--help output keeps a flag in the middle',
    klass: 'prose',
    ...bash('docker run --help'),
    output: text(
      'Usage:  docker run [OPTIONS] IMAGE [COMMAND] [ARG...]',
      '',
      'Create and run a new container from an image',
      '',
      'Options:',
      Array.from(
        { length: 45 },
        (_, i) => `      --flag-${String(i).padStart(2, '0')} string        Set option number ${i} for the container`,
      ),
      '      --stop-timeout int               Timeout (in seconds) to stop a container',
      Array.from(
        { length: 45 },
        (_, i) => `      --other-${String(i).padStart(2, '0')} list        Add value ${i} to the list`,
      ),
    ),
    keep: ['--stop-timeout int'],
  },
  {
    name: 'kubectl explain keeps a middle field',
    klass: 'prose',
    ...bash('kubectl explain deployment.spec --recursive=false'),
    output: text(
      'GROUP:      apps',
      'KIND:       Deployment',
      'VERSION:    v1',
      '',
      'FIELDS:',
      Array.from({ length: 30 }, (_, i) => [`  field${i}\t<integer>`, `    ${noise.prose(1, 400 + i)[0]}`, '']).flat(),
      '  progressDeadlineSeconds\t<integer>',
      '    The maximum time in seconds for a deployment to make progress before it is considered to be stalled. Defaults to 600s.',
      '',
      Array.from({ length: 20 }, (_, i) => [`  other${i}\t<string>`, `    ${noise.prose(1, 500 + i)[0]}`, '']).flat(),
    ),
    keep: ['considered to be stalled. Defaults to 600s.'],
  },
  {
    name: 'web search results keep a middle snippet',
    klass: 'prose',
    tool: 'web_search',
    args: { query: 'postgres max_wal_size default' },
    output: text(
      Array.from({ length: 12 }, (_, i) => [
        `${i + 1}. Result title ${i}`,
        `   https://example.com/r${i}`,
        `   ${noise.prose(1, 600 + i)[0]}`,
        '',
      ]).flat(),
      '13. Write Ahead Log settings',
      '   https://www.postgresql.org/docs/current/runtime-config-wal.html',
      '   max_wal_size defaults to 1 GB; it is a soft limit and can be exceeded under heavy load.',
      '',
      Array.from({ length: 12 }, (_, i) => [
        `${i + 14}. Result title ${i + 13}`,
        `   https://example.com/s${i}`,
        `   ${noise.prose(1, 700 + i)[0]}`,
        '',
      ]).flat(),
    ),
    keep: ['max_wal_size defaults to 1 GB'],
  },
  {
    name: 'a subagent report keeps its middle finding',
    klass: 'prose',
    tool: 'Task',
    args: { description: 'Explore the session code' },
    output: text(
      '## Exploration report',
      '',
      noise.prose(50, 127).map((l) => `- ${l}`),
      '- SessionLive and SubagentLive both call TranscriptRenderer.render/2, but only SessionLive passes session_cwd.',
      noise.prose(50, 128).map((l) => `- ${l}`),
    ),
    keep: ['only SessionLive passes session_cwd'],
  },
  {
    name: 'cat README.md through bash keeps its middle',
    klass: 'prose',
    ...bash('cat README.md'),
    output: text(article(129, 'Run `make seed` before the first start; the app refuses an empty catalogue.')),
    keep: ['Run `make seed` before the first start'],
  },
  {
    name: 'python requests print of a doc page keeps its middle',
    klass: 'prose',
    ...bash('python3 -c "import requests; print(requests.get(\'https://docs.example.com/faq\').text)"'),
    output: text(
      article(130, 'Invoices are kept for seven years and can be exported as CSV from the billing page.', 80, 140),
    ),
    keep: ['Invoices are kept for seven years'],
  },
  {
    name: 'curl of a JSON API keeps a middle field',
    klass: 'prose',
    ...bash('curl -s https://api.example.com/v1/settings | jq .'),
    output: text(
      '{',
      Array.from({ length: 50 }, (_, i) => `  "setting_${i}": ${i % 3 === 0 ? 'true' : `"value-${i}"`},`),
      '  "max_connections": 200,',
      Array.from({ length: 50 }, (_, i) => `  "other_${i}": ${i},`),
      '  "version": "2.4.1"',
      '}',
    ),
    keep: ['"max_connections": 200'],
  },
];
