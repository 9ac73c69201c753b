/**
 * Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date (5.6.7: IMF-fixdate, plus the obsolete
 * RFC 850 and asctime forms recipients must accept). Anything else, and dates in the past, give
 * undefined: a malformed header never turns into a backoff.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// Fixed patterns for the three date forms; never built from input.
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
const RFC850_DATE = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
const ASCTIME_DATE = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;
const DELAY_SECONDS = /^\d+$/;
/**
 * Delay-seconds too large to represent count as 2^31 s, as RFC 9111 1.2.2 asks of a cache receiving
 * a delta-seconds it cannot represent: a 400-digit value is a very long wait (which callers cap), not
 * Infinity and not garbage to ignore.
 */
const LARGEST_DELAY_SECONDS = 2 ** 31;

/** Milliseconds to wait from `now` (epoch ms), or undefined for a missing, malformed or past value. */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (DELAY_SECONDS.test(text)) {
    return Math.min(Number(text), LARGEST_DELAY_SECONDS) * 1000;
  }
  const at = httpDateMs(text, now);
  if (at === undefined || at < now) return undefined;
  return at - now;
}

/** An HTTP-date (any of its three forms) as epoch ms; undefined for anything else. */
export function httpDateMs(text: string, now: number): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(match[3], match[2], match[1], match[4], match[5], match[6]);
  match = RFC850_DATE.exec(text);
  if (match) return utc(fullYear(Number(match[3]), now), match[2], match[1], match[4], match[5], match[6]);
  match = ASCTIME_DATE.exec(text);
  if (match) return utc(match[6], match[1], match[2], match[3], match[4], match[5]);
  return undefined;
}

/** RFC 9110 5.6.7: a two-digit year more than 50 years ahead means the most recent past such year. */
function fullYear(twoDigits: number, now: number): number {
  const currentYear = new Date(now).getUTCFullYear();
  let year = Math.floor(currentYear / 100) * 100 + twoDigits;
  if (year > currentYear + 50) year -= 100;
  return year;
}

function utc(
  year: string | number | undefined,
  monthName: string | undefined,
  day: string | undefined,
  hour: string | undefined,
  minute: string | undefined,
  second: string | undefined,
): number | undefined {
  const month = MONTHS.indexOf((monthName ?? '').toLowerCase());
  const parts = [Number(year), Number(day), Number(hour), Number(minute), Number(second)] as const;
  const [y, d, h, m, s] = parts;
  if (month < 0 || d < 1 || d > 31 || h > 23 || m > 59 || s > 60) return undefined;
  const at = Date.UTC(y, month, d, h, m, s);
  // Date.UTC rolls 31 Feb into March; such a date is malformed.
  if (new Date(at).getUTCDate() !== d) return undefined;
  return at;
}
