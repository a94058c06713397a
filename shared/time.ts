/** ISO 8601 UTC to the second with `Z`, the one date format of the wire (docs/protocol.md#objects). */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
