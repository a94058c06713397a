const units: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];
const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "2 minutes ago", "in 5 minutes": the largest whole unit, as people say it. */
export function relative(when: Date, now: number = Date.now()): string {
  const difference = when.getTime() - now;
  for (const [unit, ms] of units) {
    if (Math.abs(difference) >= ms || unit === 'second')
      return format.format(Math.round(difference / ms), unit);
  }
  return format.format(0, 'second');
}

/** The words around a relative time, which may change once the moment has passed ("expires in…", "expired…"). */
export type Saying = (relative: string, passed: boolean) => string;
