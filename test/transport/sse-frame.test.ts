// The one SSE framing function: an event is `id:` plus one `data:` line, and an id that would split the frame is refused.
import t from 'tap';
import { frameEvent } from '../../src/transport/sse.js';

t.test('an event frames as id and one data line, ended by a blank line', async (t) => {
  t.equal(frameEvent({ id: '7', data: '{"a":1}' }), 'id: 7\ndata: {"a":1}\n\n');
  t.equal(frameEvent({ data: '{"a":1}' }), 'data: {"a":1}\n\n', 'no id line without an id');
  const json = JSON.stringify({ text: 'two\nlines\r\n' });
  t.equal(frameEvent({ id: '1', data: json }).split('\n').length, 4, 'serialized JSON stays on one data line');
});

t.test('an id with CR or LF is refused: it would start a field of its own', async (t) => {
  t.throws(() => frameEvent({ id: '1\ndata: forged', data: '{}' }), /CR or LF/);
  t.throws(() => frameEvent({ id: '1\r', data: '{}' }), /CR or LF/);
});
