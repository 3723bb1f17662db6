/**
 * "12 minutes", "1 hour and 5 minutes", "۱ ساعت و ۵ دقیقه": a wait in the language's own words, through
 * `Intl.NumberFormat`'s units and `Intl.ListFormat` (which know each language's plurals and "and"). Minutes are
 * rounded up; under a minute is `lessThanAMinute`, the caller's words for it.
 */
export function durationInWords(seconds: number, locale: string, lessThanAMinute: string): string {
  if (seconds < 60) return lessThanAMinute;
  const minutes = Math.ceil(seconds / 60);
  const unit = (value: number, name: 'hour' | 'minute') =>
    new Intl.NumberFormat(locale, { style: 'unit', unit: name, unitDisplay: 'long' }).format(value);
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const parts = rest ? [unit(hours, 'hour'), unit(rest, 'minute')] : [unit(hours, 'hour')];
  return new Intl.ListFormat(locale, { type: 'conjunction', style: 'long' }).format(parts);
}
