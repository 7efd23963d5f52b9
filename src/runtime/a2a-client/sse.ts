// Reads a text/event-stream response: yields each event's data (its `data:` lines joined), skips comments and empty
// events, and refuses an event larger than the size limit.
import type { Readable } from 'node:stream';
import { OutboundError } from './types.js';

export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
}

/** The events of `body` as they arrive; ends when the stream does. `maxEventBytes` bounds what one event may buffer. */
export async function* readSse(body: Readable, maxEventBytes: number): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buf = '';
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
      size += value.length;
      if (size > maxEventBytes) throw tooBig();
      data.push(value);
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }

  for await (const chunk of body) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let at: number;
    while ((at = buf.search(/\r\n|\r|\n/)) >= 0) {
      // a lone CR at the very end may be the first half of CRLF: wait for the next chunk
      if (buf[at] === '\r' && at === buf.length - 1) break;
      const l = buf.slice(0, at);
      buf = buf.slice(at + (buf.startsWith('\r\n', at) ? 2 : 1));
      yield* line(l);
    }
    if (buf.length > maxEventBytes) throw tooBig();
  }
  // what is left is an event not ended by a blank line: the SSE standard drops it
}
