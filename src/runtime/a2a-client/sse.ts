// Reads a text/event-stream response: yields each event's data (its `data:` lines joined), skips comments and empty
// events, and refuses an event larger than the size limit.
import type { Readable } from 'node:stream';
import { OutboundError } from './types.js';

export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
}

/**
 * The events of `body` as they arrive; ends when the stream does. `maxEventBytes` bounds what one event may buffer, in
 * UTF-8 bytes as the remote sent them.
 */
export async function* readSse(body: Readable, maxEventBytes: number): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  // this stream's own: a shared /g regex's lastIndex would be moved by another stream while this one yields
  const lineEnd = /\r\n|\r|\n/g;
  let data: string[] = [];
  let size = 0;
  let event: string | undefined;
  let id: string | undefined;
  const tooBig = () => new OutboundError('bad_response', `a stream event is larger than ${maxEventBytes} bytes`);

  function* line(l: string): Generator<SseEvent> {
    if (l === '') {
      if (data.length > 0) yield { data: data.join('\n'), ...(event !== undefined && { event }), ...(id !== undefined && { id }) };
      data = [];
      size = 0;
      event = undefined;
      return;
    }
    if (l.startsWith(':')) return;
    const colon = l.indexOf(':');
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      // the line end that joins it to the one before counts: empty data lines would otherwise pile up without bound.
      // UTF-8 bytes, not UTF-16 units: a value of 3-byte characters held three times the limit
      size += Buffer.byteLength(value, 'utf8') + (data.length > 0 ? 1 : 0);
      if (size > maxEventBytes) throw tooBig();
      data.push(value);
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }

  // The line being read, in the pieces it came in: joined once when its end comes. Searching a growing buffer for the
  // end on every chunk made an 8 MB line cost O(size²) (a remote trickling it in small writes: seconds of CPU).
  let pieces: string[] = [];
  let pending = 0;
  // the last chunk ended with CR: an LF opening the next one is the rest of that line end, not an empty line
  let afterCr = false;
  for await (const chunk of body) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    if (text === '') continue;
    let from = afterCr && text.startsWith('\n') ? 1 : 0;
    afterCr = false;
    lineEnd.lastIndex = from;
    for (let m = lineEnd.exec(text); m !== null; m = lineEnd.exec(text)) {
      const piece = text.slice(from, m.index);
      const l = pieces.length > 0 ? pieces.join('') + piece : piece;
      pieces = [];
      pending = 0;
      from = m.index + m[0].length;
      if (m[0] === '\r' && from === text.length) afterCr = true;
      yield* line(l);
    }
    if (from < text.length) {
      const piece = text.slice(from);
      pieces.push(piece);
      pending += Buffer.byteLength(piece, 'utf8');
      if (pending > maxEventBytes) throw tooBig();
    }
  }
  // what is left is an event not ended by a blank line: the SSE standard drops it
}
