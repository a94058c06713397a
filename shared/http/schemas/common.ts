import * as v from 'valibot';
import { displayTextProblem } from '#shared/domain/display-text';
import { isoSeconds } from '#shared/time';

/** A canonical UUID in either case, normalised to lowercase as every id is stored. */
export const uuid = v.pipe(
  v.string(),
  v.uuid('must be a UUID'),
  v.transform((value) => value.toLowerCase()),
);

const flagMessage = 'must be true or false';

/**
 * A boolean flag: JSON `true`/`false`, or the strings "true"/"false" in any letter case, read as the booleans they
 * name. Applications pass flags straight from configuration files and the SDKs send them as given
 * (`"active": "True"`); the retired service accepted them, so refusing them would break those applications. Nothing
 * else is a flag: "yes", 1, "1" and "" are refused.
 */
export const flag = v.pipe(
  v.union([v.boolean(), v.pipe(v.string(), v.regex(/^(?:true|false)$/i, flagMessage))], flagMessage),
  v.transform((value) => (typeof value === 'boolean' ? value : value.toLowerCase() === 'true')),
);

/** A whole number of seconds within bounds, such as a ttl. */
export const seconds = (min: number, max: number) =>
  v.pipe(
    v.number(),
    v.integer('must be an integer number of seconds'),
    v.minValue(min, `must be ${min} to ${max} seconds`),
    v.maxValue(max, `must be ${min} to ${max} seconds`),
  );

/**
 * An absolute http(s) URL, as webhooks and icons need. Control characters, spaces and invisible characters are refused
 * rather than left to the URL parser, which drops tabs and line breaks silently: the URL stored and shown is the one
 * that was given, so it must be the one that is used.
 */
export const httpUrl = v.pipe(
  v.string(),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.check(
    (value) => !/[\s\p{Cc}\p{Bidi_Control}\p{Default_Ignorable_Code_Point}]/u.test(value),
    'must not contain spaces, control characters or invisible characters',
  ),
  v.check((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL'),
);

const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO 8601 date-time with a zone, normalised to UTC to the second (`2017-10-03T22:50:15Z`). Fractions of a second
 * may have any number of digits, so the length is bounded on its own: the SDKs send at most 32 characters.
 */
export const isoDate = v.pipe(
  v.string(),
  v.maxLength(64, 'must be at most 64 characters'),
  v.check(
    (value) => isoDateTime.test(value) && !Number.isNaN(Date.parse(value)),
    'must be an ISO 8601 date-time with a zone',
  ),
  v.transform((value) => isoSeconds(new Date(value))),
);

/**
 * Text a person reads on a device prompt: nothing that renders as nothing or reorders what is around it (see
 * `displayTextProblem`). One line unless `multiline`, which keeps tabs and line breaks.
 */
export const promptText = (max: number, options: { readonly multiline?: boolean } = {}) =>
  v.pipe(
    v.string(),
    v.maxLength(max, `must be at most ${max} characters`),
    v.check(
      (value) => displayTextProblem(value, options) === undefined,
      (issue) => displayTextProblem(String(issue.input), options) ?? 'is not displayable text',
    ),
  );

/** A non-empty display name, trimmed: a service's or a directory's, which devices show. */
export const displayName = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), promptText(200));

/** A field clients may leave out or send as null (the Java SDK sends every field, null when not given). */
export const optionalNullable = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));
