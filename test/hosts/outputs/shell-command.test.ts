import { describe, expect, it } from 'vitest';
import { commandOf, isDocumentCommand, isSearchCommand } from '../../../src/hosts/outputs/shell-command.js';

describe('commandOf', () => {
  it('reads a string, a Codex argv array and a bash -lc wrapper', () => {
    expect(commandOf({ command: 'ls -la' })).toBe('ls -la');
    expect(commandOf({ cmd: 'pwd' })).toBe('pwd');
    expect(commandOf({ command: ['bash', '-lc', "rg -n 'x y' src"] })).toBe("rg -n 'x y' src");
    expect(commandOf({ command: 'bash -lc \'grep -rn "a" src | head -200\'' })).toBe('grep -rn "a" src | head -200');
    expect(commandOf({ command: 'bash -lc "sed -n \'1,10p\' README.md"' })).toBe("sed -n '1,10p' README.md");
    expect(commandOf({ command: 42 })).toBe('');
    expect(commandOf({})).toBe('');
  });
});

describe('isSearchCommand', () => {
  it.each([
    'grep -rn "user_id" src/',
    'rg -n --heading TODO .',
    'find . -name "*.py" -not -path "./.venv/*"',
    'ls -la /etc',
    'git grep -n foo',
    'git ls-files',
    'cd /srv/app && grep -rn TIMEOUT .',
    'grep -rn x . | head -150',
    'fd -e tsx . src | sort',
    'sudo find / -name core',
    'strings flash.img | grep flag',
    'cat a.py | grep -n def',
    'FOO=1 rg x',
  ])('%s is a listing', (command) => {
    expect(isSearchCommand(command)).toBe(true);
  });

  it.each([
    '',
    'npm test',
    'make 2>&1 | tail -50',
    'pytest | grep -v DEBUG',
    'grep -c x a.txt | wc -l',
    'find . -name "*.pyc" -delete',
    'find . -exec rm {} \\;',
    'cat README.md',
    'grep -rn x . && npm test',
  ])('%s is not a listing', (command) => {
    expect(isSearchCommand(command)).toBe(false);
  });
});

describe('isDocumentCommand', () => {
  it.each([
    'curl -s https://example.com/docs',
    'wget -qO- https://example.com',
    'lynx -dump https://example.com',
    'man rsync | col -b',
    'docker run --help',
    'kubectl explain deployment.spec',
    'cat README.md',
    'sed -n 1,200p docs/design.md',
    'cat package.json',
    'python3 -c "import requests; print(requests.get(\'https://x.io\').text)"',
  ])('%s prints a document', (command) => {
    expect(isDocumentCommand(command)).toBe(true);
  });

  it.each([
    '',
    'npm test',
    'curl -o out.html https://example.com',
    'cat server.log',
    'tail -n 100 /var/log/nginx/access.log',
    'sed -n 1,200p src/app.ts',
  ])('%s does not', (command) => {
    expect(isDocumentCommand(command)).toBe(false);
  });
});
