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
/** Private keys, plain or shrouded: APNs needs one, and each shrouded one costs key derivations to read. */
export const maxKeyBags = 2;
/**
 * Key derivations a file may need at worst, every encoding of the empty password tried: a push certificate's file
 * needs 4 to 8 (a MAC, encrypted certificates, a shrouded key), and each may run `maxIterations` rounds.
 */
export const maxKeyDerivations = 8;

/** An iteration count read from the file, refused above the cap with a message saying whose it is. */
export function checkedIterations(count: bigint, whose: string): number {
  if (count < 1n) throw new InvalidP12Error(`${whose} iteration count ${count} is not positive`);
  if (count > BigInt(maxIterations)) {
    throw new InvalidP12Error(`${whose} iteration count ${count} is above ${maxIterations}`);
  }
  return Number(count);
}

/** The key derivations a file needs at worst, refused above the cap before the first of those it counts. */
export function checkDerivations(count: number): void {
  if (count > maxKeyDerivations) {
    throw new InvalidP12Error(`needs up to ${count} key derivations to read, more than ${maxKeyDerivations}`);
  }
}
