// What of an agent's failure a caller may read: the words, not the server's file layout (paths stay in the logs).

const STACK_LINE = /^\s*at .*$/gm;
const FILE_URL = /file:\/\/[^\s'"`()<>\]]+/g;
// an absolute path of two or more segments, after a start, a space, a quote, a bracket or a colon
const POSIX_PATH = /(^|[\s'"`([=:])\/(?:[^\s'"`()<>\]/:]+\/)+[^\s'"`()<>\]/:]*/g;
const WINDOWS_PATH = /(^|[\s'"`([=:])[A-Za-z]:\\[^\s'"`()<>\]]+/g;

/** A failure message without stack lines, file URLs or absolute paths (each path becomes `<path>`). */
export function redactPaths(message: string): string {
  return message
    .replace(STACK_LINE, '')
    .replace(FILE_URL, '<path>')
    .replace(POSIX_PATH, '$1<path>')
    .replace(WINDOWS_PATH, '$1<path>')
    .replace(/\n{2,}/g, '\n')
    .trim();
}
