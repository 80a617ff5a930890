/**
 * Which shell commands write a file from a here-document they carry (input clearing, issue 15),
 * with the quoting that trips a naive reader: quoted and escaped delimiters, `<<-` with tabs, a
 * `<<` inside quotes, arithmetic or a comment, here-strings, several documents on one line, and
 * documents fed to programs that write nothing.
 */
import { describe, expect, it } from 'vitest';
import { heredocWrites, lineCount } from '../../src/hosts/shell-writes.js';

function paths(command: string): string[] {
  return heredocWrites(command).map((w) => w.path);
}

function body(command: string, k = 0): string {
  const w = heredocWrites(command)[k];
  return w ? command.slice(w.bodyStart, w.bodyEnd) : '<none>';
}

describe('heredocWrites', () => {
  it.each([
    ["cat > test.py << 'EOF'\nprint(1)\nEOF", 'test.py'],
    ['cat > test.py <<EOF\nprint(1)\nEOF', 'test.py'],
    ['cat >test.py <<"EOF"\nprint(1)\nEOF', 'test.py'],
    ['cat <<\\EOF > out/a.txt\nx\nEOF', 'out/a.txt'],
    ["cat >> log.md << 'END'\nmore\nEND", 'log.md'],
    ["cd /testbed && cat > reproduce.py << 'EOF'\nimport os\nEOF\npython reproduce.py", 'reproduce.py'],
    ["tee config.yaml <<'YAML'\na: 1\nYAML", 'config.yaml'],
    ["tee -a notes.txt > /dev/null <<'X'\nline\nX", 'notes.txt'],
    ["cat <<'EOF' | tee src/app.ts\nexport {};\nEOF", 'src/app.ts'],
    ["mkdir -p d && cat > 'd/my file.py' <<'EOF'\npass\nEOF", 'd/my file.py'],
  ])('finds the file written by %j', (command, path) => {
    expect(paths(command)).toEqual([path]);
  });

  it('gives the body exactly, without the delimiter line', () => {
    const command = "cat > t.py << 'EOF'\nline one\n  line two\nEOF\npython t.py";
    expect(body(command)).toBe('line one\n  line two\n');
    expect(heredocWrites(command)[0]).toMatchObject({ lines: 2, chars: 20 });
  });

  it('ends a `<<-` body at a tab-indented delimiter, and only there', () => {
    const command = 'cat > a.sh <<-EOF\n\techo hi\n\tEOF\necho after';
    expect(body(command)).toBe('\techo hi\n');
    // Without the dash a tab-indented delimiter is body text; the real end comes later.
    expect(body('cat > a.sh <<EOF\n\tEOF\nEOF')).toBe('\tEOF\n');
  });

  it('does not end a body at a line that only contains the delimiter', () => {
    expect(body("cat > m.py <<'EOF'\nx = 'EOF '\n# EOF\nEOF")).toBe("x = 'EOF '\n# EOF\n");
  });

  it('reads several documents on one line in order', () => {
    const command = "cat > a.txt <<'A'; cat > b.txt <<'B'\nalpha\nA\nbeta\nB\necho done";
    expect(paths(command)).toEqual(['a.txt', 'b.txt']);
    expect(body(command, 0)).toBe('alpha\n');
    expect(body(command, 1)).toBe('beta\n');
  });

  it('reads documents on later lines of a script', () => {
    const command = "set -e\ncat > one.py <<'EOF'\n1\nEOF\npython one.py\ncat > two.py <<'EOF'\n2\nEOF";
    expect(paths(command)).toEqual(['one.py', 'two.py']);
  });

  it.each([
    ['python3 - <<EOF\nprint(1)\nEOF', 'a document fed to an interpreter writes no file'],
    ['mysql db <<SQL\nselect 1;\nSQL', 'nor one fed to a client'],
    ["cat <<'EOF' | python\nprint(1)\nEOF", 'nor cat piped into a program'],
    ["cat > /dev/null <<'EOF'\nx\nEOF", '/dev/null is not a file'],
    ['cat > $OUT <<EOF\nx\nEOF', 'a variable is not a path we know'],
    ['echo "a << b" > f.txt', 'a << inside double quotes opens nothing'],
    ["echo 'cat > x <<EOF' > f.txt", 'nor inside single quotes'],
    ['echo $((1 << 4)) > n.txt', 'nor an arithmetic shift'],
    ['grep -c x <<< "$text" > n.txt', 'a here-string is not a document'],
    ['# cat > x.py <<EOF\nls', 'a comment opens nothing'],
    ["cat > a.py <<'EOF'\nno end", 'an unterminated body is unsure'],
    ['echo "unclosed <<EOF\nx\nEOF', 'an unclosed quote is unsure'],
    ['cat a.py b.py > c.py', 'a copy without a document'],
  ])('finds nothing in %j (%s)', (command) => {
    expect(heredocWrites(command)).toEqual([]);
  });

  it('counts lines as the file gets them', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a')).toBe(1);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount('a\n\n')).toBe(2);
  });
});
