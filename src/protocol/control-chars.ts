// Characters no name may hold and no terminal line should show raw: control characters (C0 and C1: newline, tab,
// escape, ...), which forge or hide lines and, written to a terminal, drive it (ESC sequences move the cursor over
// earlier lines, set the title, write the clipboard); and bidi controls (embeddings and overrides U+202A-U+202E,
// isolates U+2066-U+2069, the marks U+200E, U+200F, U+061C), which are invisible and reorder what follows, so a line
// shows another text than the one stored ("invoice\u202Efdp.exe" reads "invoiceexe.pdf"). Letters of right-to-left
// scripts need none of these and are fine. The line and paragraph separators U+2028, U+2029 break lines as a
// newline does, and are escaped where text is shown (`escapeControls`).
const CONTROL_CLASS = '\\p{Cc}\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
const CONTROL = new RegExp(`[${CONTROL_CLASS}]`, 'u');
const SHOWN_RAW_NEVER = new RegExp(`[${CONTROL_CLASS}\\u2028\\u2029]`, 'gu');

export const NO_CONTROL = 'no control characters (newlines, tabs, escapes) or bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)';

/** True when `text` holds a character no name may hold: the one rule for every name an operator chooses. */
export const hasControl = (text: string): boolean => CONTROL.test(text);

/**
 * `text` with each such character written as `\uXXXX` (visible, and the same escape JSON uses), except those in
 * `keep` (a multi-line answer keeps its newlines and tabs).
 */
export function escapeControls(text: string, o: { keep?: string } = {}): string {
  return text.replace(SHOWN_RAW_NEVER, (c) => (o.keep?.includes(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
