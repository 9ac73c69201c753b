/**
 * The date of an `unavailable_after` rule, in the formats Google's robots meta tag specification
 * names ("a widely adopted format including RFC 822, RFC 850, and ISO 8601"; the rule is ignored
 * without a valid date), and only those: `Date.parse` reads far more (`1` as 2001-01-01, `2030` as a
 * year, `June 5` in the machine's time zone), which would end a page's life on a guess. A value in
 * none of these forms is no date, and the rule goes to `unknown`.
 *
 * - ISO 8601 calendar dates, extended (`2030-06-25`) or basic (`20300625`), alone (midnight UTC) or
 *   with a time `T15:00`, `T15:00:00`, `T15:00:00.250` and a zone `Z`, `+02:00`, `+0200` (in the
 *   extended form too: the offset is not ambiguous), `+02`; a space instead of the `T`, as RFC 3339
 *   5.6 lets a reader take it. A time without a zone is read as UTC (no machine's clock decides);
 *   reduced precision (`2030`, `2030-06`) and week or ordinal dates are not read.
 * - RFC 822 (years of four digits as RFC 1123 allows): `[Fri, ]25 Jun 2030 15:00[:00] PST`, the zone
 *   one of UT, GMT, Z, EST, EDT, CST, CDT, MST, MDT, PST, PDT or `+hhmm` / `-hhmm` (the other
 *   one-letter military zones are not read: RFC 1123 5.2.14 says their signs were published wrong).
 * - RFC 850: `Friday, 25-Jun-30 15:00:00 GMT`, the same zones.
 * Two-digit years follow RFC 5322 4.3: 00-49 are 2000-2049, 50-99 are 1950-1999. Weekday names are
 * not checked against the date (HTTP's dates, RFC 9110 5.6.7, do not check them either). Case does
 * not matter (rules reach here lower-cased).
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Zone names of RFC 822 5.1, as minutes east of UTC. */
const ZONES: Readonly<Record<string, number>> = {
  ut: 0,
  gmt: 0,
  z: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
};

const WEEKDAY = '(?:mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const ZONE = '(ut|gmt|z|[ecmp][sd]t|[+-]\\d{4})';
const RFC_822 = new RegExp(
  `^(?:${WEEKDAY}, ?)?(\\d{1,2}) ${MONTH} (\\d{2}|\\d{4}) (\\d{2}):(\\d{2})(?::(\\d{2}))? ${ZONE}$`,
);
const RFC_850 = new RegExp(
  `^${WEEKDAY}, (\\d{1,2})-${MONTH}-(\\d{2}|\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) ${ZONE}$`,
);
const ISO_EXTENDED =
  /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const ISO_BASIC =
  /^(\d{4})(\d{2})(\d{2})(?:t(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?(z|[+-]\d{2}(?:\d{2})?)?)?$/;

/** The instant an `unavailable_after` value names, as epoch ms; undefined when it is no date we read. */
export function parseUnavailableAfter(value: string): number | undefined {
  const text = value.trim().toLowerCase();
  const rfc = RFC_822.exec(text) ?? RFC_850.exec(text);
  if (rfc) {
    const [, day, month, year, hour, minute, second, zone] = rfc as unknown as string[];
    return instant(
      fullYear(year as string),
      MONTHS.indexOf(month as string) + 1,
      Number(day),
      [Number(hour), Number(minute), Number(second ?? 0), 0],
      zoneMinutes(zone as string),
    );
  }
  const iso = ISO_EXTENDED.exec(text) ?? ISO_BASIC.exec(text);
  if (iso) {
    const [, year, month, day, hour, minute, second, fraction, zone] = iso;
    const ms = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
    return instant(
      Number(year),
      Number(month),
      Number(day),
      [Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0), ms],
      zone === undefined ? 0 : zoneMinutes(zone),
    );
  }
  return undefined;
}

/** RFC 5322 4.3: a two-digit year below 50 is 20xx, the others 19xx. */
function fullYear(year: string): number {
  const n = Number(year);
  return year.length > 2 ? n : n < 50 ? 2000 + n : 1900 + n;
}

/** Minutes east of UTC for a zone name or `+hhmm` / `+hh:mm` / `+hh`; undefined when out of range. */
function zoneMinutes(zone: string): number | undefined {
  if (Object.hasOwn(ZONES, zone)) return ZONES[zone];
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** Epoch ms of a calendar date and time at a zone; undefined for a day, time or zone that does not exist. */
function instant(
  year: number,
  month: number,
  day: number,
  [hour, minute, second, ms]: readonly [number, number, number, number],
  zone: number | undefined,
): number | undefined {
  if (zone === undefined || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0-99 as 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return undefined; // 31 June, 29 February of a common year
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime() - zone * 60_000;
}
