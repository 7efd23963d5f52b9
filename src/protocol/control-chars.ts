// Characters no name may hold and no terminal line should show raw: control characters (C0 and C1: newline, tab,
// escape, ...), which forge or hide lines and, written to a terminal, drive it (ESC sequences move the cursor over
// earlier lines, set the title, write the clipboard); and bidi controls (embeddings and overrides U+202A-U+202E,
// isolates U+2066-U+2069, the marks U+200E, U+200F, U+061C), which are invisible and reorder what follows, so a line
// shows another text than the one stored ("invoice\u202Efdp.exe" reads "invoiceexe.pdf"). Letters of right-to-left
// scripts need none of these and are fine. The line and paragraph separators U+2028, U+2029 break lines as a newline
// does: text shown to an operator has them replaced too (`one-line.ts`). The one list of these characters.
const BIDI = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
const CONTROL = new RegExp(`[\\p{Cc}${BIDI}]`, 'u');

export const NO_CONTROL = 'no control characters (newlines, tabs, escapes) or bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)';

/** True when `text` holds a character no name may hold: the one rule for every name an operator chooses. */
export const hasControl = (text: string): boolean => CONTROL.test(text);

/** Every character text from outside must not show raw: controls, bidi controls, line and paragraph separators. */
export const SHOWN_NEVER = new RegExp(`[\\p{Cc}${BIDI}\\u2028\\u2029]`, 'gu');
/** The same, but for newline and tab: text that may span lines keeps them. */
export const SHOWN_NEVER_BUT_LINES = new RegExp(`[^\\P{Cc}\\n\\t]|[${BIDI}\\u2028\\u2029]`, 'gu');

/**
 * JSON text with each such character that JSON.stringify leaves raw (C1, bidi, U+2028/9) written as its `\uXXXX`
 * escape: the same value, still valid JSON, nothing a terminal acts on (C0 JSON.stringify escapes itself).
 */
export const escapeInJson = (json: string): string => json.replace(SHOWN_NEVER, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
