// Reading an RFC 3339 time (1.0's Timestamp in proto-JSON, and the revisions' list filter) strictly: `Date.parse`
// reads almost anything ("1" is the year 2001, Feb 30 is Mar 2) and a time without a zone in the server's own zone.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * Ms since the epoch of `s`, a date, a time and a zone (`Z` or `±hh:mm`) as RFC 3339 writes them, or undefined for
 * anything else: a day its month lacks, an hour past 23, a leap second (JavaScript time has none), no zone.
 */
export function rfc3339Ms(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return undefined;
  const ms = Date.parse(s.toUpperCase());
  return Number.isNaN(ms) ? undefined : ms;
}
