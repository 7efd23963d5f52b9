// Text from outside shown on a line of its own (a remote's card name, an error quoting a remote, in a connection's
// status): control characters (newline, tab, escape, ...) would forge or hide lines of a listing and drive the
// operator's terminal, and a remote's text has no length of its own.
import { cutCodePoints } from './summary.js';

const CONTROLS = /\p{Cc}/gu;

/** `s` as one printable line of at most `limit` code points: each control character read as U+FFFD. */
export const oneLine = (s: string, limit: number): string => cutCodePoints(s.replace(CONTROLS, '\uFFFD'), limit);
