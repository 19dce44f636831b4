/** Whether the runtime knows this IANA time zone name (what a subscriber's `timezone` must be). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
