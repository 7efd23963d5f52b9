// Which Unicode encoding other than UTF-8 a request body is in, when it shows: RFC 8259 §8.1 has JSON exchanged in
// UTF-8 only, but some clients (PowerShell's `-Encoding Unicode`, .NET's default `Encoding.Unicode`) send UTF-16, and
// "not valid JSON" did not tell them why. No I/O.

/**
 * 'UTF-16LE', 'UTF-16BE', 'UTF-32LE' or 'UTF-32BE' when the body starts with that encoding's byte order mark, or
 * (RFC 4627 §3) has the NUL bytes its first two ASCII characters would have; undefined otherwise (UTF-8 never has a
 * NUL there: JSON text starts with an ASCII character).
 */
export function wideEncodingOf(body: Uint8Array): string | undefined {
  const [a, b, c, d] = [body[0], body[1], body[2], body[3]];
  if (a === 0x00 && b === 0x00 && c === 0xfe && d === 0xff) return 'UTF-32BE';
  if (a === 0xff && b === 0xfe && c === 0x00 && d === 0x00) return 'UTF-32LE';
  if (a === 0xfe && b === 0xff) return 'UTF-16BE';
  if (a === 0xff && b === 0xfe) return 'UTF-16LE';
  if (body.length < 4) return undefined;
  if (a === 0x00 && b === 0x00 && c === 0x00 && d !== 0x00) return 'UTF-32BE';
  if (a !== 0x00 && b === 0x00 && c === 0x00 && d === 0x00) return 'UTF-32LE';
  if (a === 0x00 && b !== 0x00 && c === 0x00 && d !== 0x00) return 'UTF-16BE';
  if (a !== 0x00 && b === 0x00 && c !== 0x00 && d === 0x00) return 'UTF-16LE';
  return undefined;
}
