import * as v from 'valibot';

/** The implementer's identifier for a directory user. */
export const identifier = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(256, 'must be at most 256 characters'),
  v.check(
    (value) =>
      ![...value].some((character) => (character.codePointAt(0) ?? 0) < 0x20 || character === '\u007f'),
    'must not contain control characters',
  ),
);

export const identifierBody = v.strictObject({ identifier });
