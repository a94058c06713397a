import * as v from 'valibot';

/** A lowercase or uppercase canonical UUID, normalised to lowercase as every id is stored. */
export const uuid = v.pipe(
  v.string(),
  v.uuid('must be a UUID'),
  v.transform((value) => value.toLowerCase()),
);
