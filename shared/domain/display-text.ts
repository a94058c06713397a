/**
 * Text a person reads on a device prompt (a service's name, a request's title and context, a denial reason, a fence's
 * name) must look like what it is. Control characters, bidirectional controls and default-ignorable code points
 * (zero-width spaces and joiners, soft hyphens, variation selectors) render as nothing or reorder what is around
 * them, so `Svc\u200bA` would pose as `SvcA` and a right-to-left override could turn a name around. A single line
 * refuses line and paragraph separators too; multi-line text keeps tab, line feed and carriage return.
 */
const hiddenOrControl = /[\p{Cc}\p{Bidi_Control}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;
const hiddenOrControlKeepingLines = /[\p{Bidi_Control}\p{Default_Ignorable_Code_Point}]|[^\P{Cc}\t\n\r]/u;

/** Why `text` cannot be shown on a prompt, or undefined when it can. */
export function displayTextProblem(
  text: string,
  options: { readonly multiline?: boolean } = {},
): string | undefined {
  const match = (options.multiline ? hiddenOrControlKeepingLines : hiddenOrControl).exec(text);
  if (!match) return undefined;
  const codePoint = (match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return `must not contain control, bidirectional or invisible characters (U+${codePoint} at character ${match.index + 1})`;
}

/**
 * Whether `text` is well-formed UTF-16. A lone surrogate is not a character: storage and comparison turn it into
 * U+FFFD, so two different identifiers holding one would become the same user.
 */
export function isWellFormedText(text: string): boolean {
  // With the u flag a surrogate pair is one code point, so only an unpaired surrogate matches.
  return !/[\uD800-\uDFFF]/u.test(text);
}
