// The commands the documentation names (`npm run bench -- --only metrics`, `node scripts/x.mjs`,
// `npm run jest -- path`), and the sections that show measured figures, for
// scripts/test/doc-commands.e2e-spec.ts: every command must exist, and every figure must say
// which command produced it.

/** Each `npm ...` or `node ...` command of a document: in inline code, and on lines of shell blocks. */
export function commandsOf(document, text) {
  const found = [];
  const add = (command, line) => {
    const clean = command.replace(/\s+#.*$/, '').replace(/^[A-Z_]+=\S+\s+/, '').trim();
    if (/^(npm (run|test)|node (?!-))/.test(clean)) found.push({ document, line, command: clean });
  };
  const lines = text.split('\n');
  let block; // the language of the code block the line is in, or undefined
  lines.forEach((line, index) => {
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence) {
      block = block === undefined ? fence[1] : undefined;
      return;
    }
    if (block !== undefined) {
      if (!['bash', 'sh', 'shell', ''].includes(block)) return;
      for (const part of line.split(/&&|;/)) add(part, index + 1);
      return;
    }
    for (const match of line.matchAll(/`([^`]+)`/g)) add(match[1], index + 1);
  });
  return found;
}

/** `{ script, workspace, args }` of `npm run <script> [-w <workspace>] [-- args...]`, or of `npm test`. */
export function parseNpmRun(command) {
  const words = command.split(/\s+/);
  if (words[1] === 'test') return { script: 'test', workspace: undefined, args: words.slice(words.indexOf('--') + 1 || words.length) };
  const dashes = words.indexOf('--');
  const head = dashes === -1 ? words : words.slice(0, dashes);
  const args = dashes === -1 ? [] : words.slice(dashes + 1);
  const w = head.indexOf('-w');
  return { script: head[2], workspace: w === -1 ? undefined : head[w + 1], args };
}

const FIGURE_CELL = /(^|\s)[\d.,]+\s*(ms|µs|us|s|B|KB|MB|GB|KiB|MiB|%|x)(\s|$)|\d,\d{3}|\d\.\d/;

/**
 * Sections (a heading and the text up to the next heading) that hold a table of measured figures
 * but name no command, neither themselves nor in the text their parent headings open with.
 */
export function figuresWithoutCommand(document, text) {
  const lines = text.split('\n');
  const sections = [];
  let current = { heading: '(top)', level: 0, start: 1, body: [] };
  for (const [index, line] of lines.entries()) {
    const heading = /^(#{1,6}) (.*)/.exec(line);
    if (heading) {
      sections.push(current);
      current = { heading: heading[2], level: heading[1].length, start: index + 1, body: [] };
    } else current.body.push(line);
  }
  sections.push(current);
  const problems = [];
  const names = (body) => /`(npm (run|test)|node )[^`]*`|^\s*(npm (run|test)|node )/m.test(body.join('\n'));
  sections.forEach((section, index) => {
    const rows = section.body.filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line));
    // Reference tables (options with their defaults, methods, errors, ...) hold no measurements.
    if (rows.length > 0 && /^\|\s*(option|method|class|flag|code|variable|event|metric|key|script|route|member|hook|error\b)/i.test(rows[0])) return;
    if (rows.length > 0 && /\bdefault\b/i.test(rows[0])) return;
    const figureRows = rows.slice(1).filter((row) => row.split('|').slice(2, -1).some((cell) => FIGURE_CELL.test(cell.trim())));
    if (figureRows.length < 2) return;
    if (names(section.body)) return;
    // the intros of the enclosing sections
    let level = section.level;
    for (let i = index - 1; i >= 0 && level > 1; i--) {
      if (sections[i].level < level) {
        if (names(sections[i].body)) return;
        level = sections[i].level;
      }
    }
    problems.push(`${document}:${section.start} "${section.heading}" shows figures but names no command that produces them`);
  });
  return problems;
}
