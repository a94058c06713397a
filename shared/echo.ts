/**
 * How much of a caller's input an error detail or a log line repeats. A short prefix is enough to recognise a value;
 * repeating all of it would let one request make an error as large as its body, or fill a log line.
 */
export const echoLength = 40;

/** Enough to repeat a well-formed identifier whole: a kid is 47 characters, a path with a UUID in it about 60. */
export const idEchoLength = 64;

/** The longest `error_detail` the API sends, whatever it is made of. */
export const maxDetailLength = 500;

/** `text` cut to `max` characters, with an ellipsis when it was longer. A surrogate pair is never split. */
export function clip(text: string, max = echoLength): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** A caller's text as a JSON string literal, clipped first: control characters and quotes come out escaped. */
export function quote(text: string, max = echoLength): string {
  return JSON.stringify(clip(text, max));
}

/**
 * A caller's JSON value for a message: text clipped, a number or literal as written, an array or object by its kind
 * only (printing one would cost as much as the request made it, and a deep one overflows the stack).
 */
export function echoValue(value: unknown, max = echoLength): string {
  if (typeof value === 'string') return clip(value, max);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return clip(String(value), max);
}
