// What the CLI writes on stdout and stderr. What it shows did not all come from the operator: a remote agent's answer
// and its card's name (`call`, `connections status`), records another process or an older version stored. Raw, a
// control character in it would drive the terminal (ESC sequences move the cursor over earlier lines, set the title,
// write the clipboard), a newline forge a listing line, a bidi control reorder one. So every line goes out through
// `protocol/one-line.ts` (such characters read as U+FFFD), and JSON with those JSON.stringify leaves raw (C1, bidi,
// U+2028/9) escaped: the same value, still valid JSON.
import { escapeInJson } from '../protocol/control-chars.js';
import { asLine, forTerminal } from '../protocol/one-line.js';

/** Writes each line, its control and bidi characters replaced (a newline inside one too: it is one line). */
export function out(...lines: string[]): void {
  for (const line of lines) process.stdout.write(`${asLine(line)}\n`);
}

/** Writes text that may span lines (a remote agent's answer): its newlines and tabs kept, every other control replaced. */
export function outText(text: string): void {
  process.stdout.write(`${forTerminal(text)}\n`);
}

/** Writes `value` as one JSON line (--json), with no raw control or bidi character in it. */
export function outJson(value: unknown): void {
  process.stdout.write(`${escapeInJson(JSON.stringify(value))}\n`);
}

/** Writes a message on stderr (an error may quote a remote's answer): its newlines kept, every other control replaced. */
export function err(text: string): void {
  process.stderr.write(`${forTerminal(text)}\n`);
}
