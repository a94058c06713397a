import { createHmac, timingSafeEqual } from 'node:crypto';
import { type ASN1Value, elementsOf, lookUpOid, octets, smallInteger } from '#shared/domain/pkcs12/der';
import { InvalidP12Error } from '#shared/domain/pkcs12/invalid-p12-error';
import { type Pkcs12KdfHash, pkcs12Kdf, pkcs12KeyPurpose } from '#shared/domain/pkcs12/kdf';
import { checkedIterations } from '#shared/domain/pkcs12/limits';

/**
 * The two encodings of the empty password PKCS#12's derivation meets: a BMPString of its terminator alone, as
 * OpenSSL and Keychain write it, and no bytes at all, as some Java and Windows versions do.
 */
export const emptyPasswords: readonly Uint8Array[] = [Uint8Array.of(0, 0), new Uint8Array(0)];

/** The MAC's digests, by node's name, with their output length: the HMAC key's length. */
const macDigests: Readonly<Record<string, { hash: Pkcs12KdfHash; length: number }>> = {
  '1.3.14.3.2.26': { hash: 'sha1', length: 20 },
  '2.16.840.1.101.3.4.2.4': { hash: 'sha224', length: 28 },
  '2.16.840.1.101.3.4.2.1': { hash: 'sha256', length: 32 },
  '2.16.840.1.101.3.4.2.2': { hash: 'sha384', length: 48 },
  '2.16.840.1.101.3.4.2.3': { hash: 'sha512', length: 64 },
};

export interface Mac {
  /**
   * The encoding of the empty password under which the MAC matches the AuthenticatedSafe's bytes; a damaged file, or
   * one with a password, is refused.
   */
  verify(authenticatedSafe: Uint8Array): Uint8Array;
}

/** Reads MacData (RFC 7292 4) and checks its iteration count against the cap; derives nothing yet. */
export function readMac(macData: ASN1Value): Mac {
  const [digestInfo, salt, count] = elementsOf(macData, 3);
  const [algorithm, digest] = elementsOf(digestInfo, 2);
  const [identifier] = elementsOf(algorithm, 2);
  const mac = lookUpOid(identifier, macDigests);
  if (!mac) throw new InvalidP12Error("the MAC's algorithm is not supported");
  // iterations INTEGER DEFAULT 1: DER leaves it out when it is 1.
  const iterations = checkedIterations(count === undefined ? 1n : smallInteger(count), "the MAC's");
  const expected = octets(digest);
  const saltBytes = octets(salt);
  return {
    verify(authenticatedSafe) {
      for (const password of emptyPasswords) {
        const key = pkcs12Kdf({
          hash: mac.hash,
          password,
          salt: saltBytes,
          purpose: pkcs12KeyPurpose.mac,
          iterations,
          length: mac.length,
        });
        const actual = createHmac(mac.hash, key).update(authenticatedSafe).digest();
        if (actual.byteLength === expected.byteLength && timingSafeEqual(actual, expected)) return password;
      }
      throw new InvalidP12Error('the MAC does not match: the file is damaged or has a password');
    },
  };
}
