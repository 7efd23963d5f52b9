// Bench module agent "chunks" (bench/streams.ts, chunk stream row): streams `chunks` one-byte text chunks to one
// artifact (artifactId "out", append: true, the last with lastChunk: true) as fast as it can, then `completed`.
// Chunk i (from 0) is alphabet[i % alphabet.length], so the client can check every chunk arrived, in order.
// Data part: { chunks: number (1..1,000,000), alphabet: string of one-byte characters }.
function params(message) {
  for (const part of message.parts ?? []) {
    if (part.kind === 'data' && part.data && typeof part.data.chunks === 'number') return part.data;
  }
  return { chunks: 100 };
}

export default async function* chunks({ message }) {
  const p = params(message);
  const n = Math.max(1, Math.min(1_000_000, Math.floor(p.chunks)));
  const alphabet = typeof p.alphabet === 'string' && p.alphabet.length > 0 ? p.alphabet : 'x';
  for (let i = 0; i < n; i++) {
    yield {
      type: 'artifact',
      artifact: { artifactId: 'out', parts: [{ kind: 'text', text: alphabet[i % alphabet.length] }], append: true, lastChunk: i === n - 1 },
    };
  }
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: `sent ${n} chunks` }] } };
}
