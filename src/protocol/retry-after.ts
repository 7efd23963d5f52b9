// Reading an HTTP Retry-After value (RFC 9110 §10.2.3): delta-seconds, or an HTTP-date in any of its three forms
// (IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must still accept). Strict on purpose: Date.parse
// reads almost anything ("1" is the year 2001), and a value misread as a date would stall or hot-loop a client.
// Pure, no I/O: here so that any client of the project (the relay first) can use it.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MON = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** Sun, 06 Nov 1994 08:49:37 GMT */
const IMF = new RegExp(`^(${DAYS.join('|')}), (\\d{2}) (${MON}) (\\d{4}) ${TIME} GMT$`);
/** Sunday, 06-Nov-94 08:49:37 GMT */
const RFC850 = new RegExp(`^(${LONG_DAYS.join('|')}), (\\d{2})-(${MON})-(\\d{2}) ${TIME} GMT$`);
/** Sun Nov  6 08:49:37 1994 */
const ASCTIME = new RegExp(`^(${DAYS.join('|')}) (${MON}) ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

/**
 * An HTTP-date as milliseconds since the epoch, or undefined when it is not one (a day out of its month, a weekday
 * that does not match the date, 25:00, ...). A two-digit RFC 850 year more than 50 years ahead of `now` is of the
 * past century (RFC 9110 §5.6.7).
 */
export function parseHttpDate(text: string, now: number): number | undefined {
  let day: string, mon: string, year: number, hh: string, mm: string, ss: string, weekday: number;
  let m = IMF.exec(text);
  if (m) {
    [day, mon, year, hh, mm, ss] = [m[2]!, m[3]!, Number(m[4]), m[5]!, m[6]!, m[7]!];
    weekday = DAYS.indexOf(m[1]!);
  } else if ((m = RFC850.exec(text))) {
    [day, mon, hh, mm, ss] = [m[2]!, m[3]!, m[5]!, m[6]!, m[7]!];
    const nowYear = new Date(now).getUTCFullYear();
    year = Math.floor(nowYear / 100) * 100 + Number(m[4]);
    if (year > nowYear + 50) year -= 100;
    weekday = LONG_DAYS.indexOf(m[1]!);
  } else if ((m = ASCTIME.exec(text))) {
    [mon, day, hh, mm, ss, year] = [m[2]!, m[3]!.trim(), m[4]!, m[5]!, m[6]!, Number(m[7])];
    weekday = DAYS.indexOf(m[1]!);
  } else return undefined;
  const month = MONTHS.indexOf(mon);
  const [d, h, mi, s] = [Number(day), Number(hh), Number(mm), Number(ss)];
  if (h > 23 || mi > 59 || s > 60) return undefined;
  // a leap second (:60) reads as the next minute's start
  const at = Date.UTC(year, month, d, h, mi, s);
  const check = new Date(Date.UTC(year, month, d));
  if (check.getUTCMonth() !== month || check.getUTCDate() !== d || check.getUTCDay() !== weekday) return undefined;
  return at;
}

/**
 * The wait a Retry-After value asks for, in milliseconds (0 for a date already past), or undefined when the value is
 * absent or malformed (the caller then goes by its own backoff). A date is read against the response's own `Date`
 * header when that is a valid HTTP-date, so a server whose clock is off from ours still gets the wait it meant; else
 * against `now`.
 */
export function retryAfterMs(value: string | undefined, o: { now: number; date?: string | undefined }): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), 1e9) * 1000;
  const at = parseHttpDate(v, o.now);
  if (at === undefined) return undefined;
  const sent = o.date === undefined ? undefined : parseHttpDate(o.date.trim(), o.now);
  return Math.max(0, at - (sent ?? o.now));
}
