// Formatting for the admin UI: times, durations, the tunnel's state in words.

/** "14:03:07" (today) or "2026-11-23 14:03:07" */
export function clockTime(ms) {
  if (ms === undefined || ms === null) return '—';
  const d = new Date(ms);
  const pad = (n) => String(n).padStart(2, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const today = new Date();
  return d.toDateString() === today.toDateString() ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

/** "850 ms", "3.2 s", "4 min 05 s", "2 h 07 min" */
export function duration(ms) {
  if (ms === undefined || ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** "just now", "12 s ago"... */
export function ago(ms) {
  return ms < 1000 ? 'just now' : `${duration(ms)} ago`;
}

/** "in 3 s" / "now" */
export function countdown(ms) {
  if (ms <= 500) return 'now';
  return `in ${Math.ceil(ms / 1000)} s`;
}

/** the CSS class of a tunnel or turn state */
export function tone(state) {
  switch (state) {
    case 'connected':
    case 'up':
    case 'completed':
      return 'good';
    case 'connecting':
    case 'backing off':
    case 'starting':
    case 'running':
    case 'input-required':
    case 'unknown':
      return 'warn';
    default:
      return 'bad';
  }
}
