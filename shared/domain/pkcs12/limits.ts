import { InvalidP12Error } from '#shared/domain/pkcs12/invalid-p12-error';

/**
 * What a file may ask of the parser, all read before the work they drive. Key derivation costs its iteration count in
 * hash rounds, and the count comes from the file: current exports use 2 048, and a few million hold a function for
 * seconds. A push certificate's file holds two contents (encrypted certificates, then the shrouded key) and a handful
 * of bags; the caps leave room for a chain and for other exporters' layouts.
 */
export const maxIterations = 10_000;
/** ContentInfos in the AuthenticatedSafe: each may need one or two key derivations to decrypt. */
export const maxContents = 4;
/** SafeBags in the whole file, nested ones included. */
export const maxBags = 16;
/** SafeContents bags inside SafeContents bags: one level. */
export const maxNesting = 1;

/** An iteration count read from the file, refused above the cap with a message saying whose it is. */
export function checkedIterations(count: bigint, whose: string): number {
  if (count < 1n) throw new InvalidP12Error(`${whose} iteration count ${count} is not positive`);
  if (count > BigInt(maxIterations)) {
    throw new InvalidP12Error(`${whose} iteration count ${count} is above ${maxIterations}`);
  }
  return Number(count);
}
