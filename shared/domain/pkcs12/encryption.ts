import { createDecipheriv, pbkdf2Sync } from 'node:crypto';
import {
  type ASN1Value,
  elementsOf,
  isInteger,
  isOid,
  lookUpOid,
  octets,
  smallInteger,
} from '#shared/domain/pkcs12/der';
import { InvalidP12Error } from '#shared/domain/pkcs12/invalid-p12-error';
import { pkcs12Kdf, pkcs12KeyPurpose } from '#shared/domain/pkcs12/kdf';
import { checkedIterations } from '#shared/domain/pkcs12/limits';
import { rc2CbcDecrypt } from '#shared/domain/pkcs12/rc2';

/** An encryption read from the file, its parameters checked; it derives nothing until asked to decrypt. */
export interface Encryption {
  /**
   * Whether `decrypt` derives with PKCS#12's own encoding of the password (see `emptyPasswords`); PBES2 takes the
   * password's bytes instead, which are none either way, and ignores it.
   */
  readonly encodesPassword: boolean;
  /** Key derivations one `decrypt` runs, for the file's budget. */
  readonly derivations: number;
  decrypt(ciphertext: Uint8Array, password: Uint8Array): Buffer;
}

/** RFC 7292 appendix C's pbeWithSHAAnd… schemes this reads: their key length and cipher. RC4 ones are refused. */
const pkcs12Schemes: Readonly<
  Record<string, { keyLength: number; cipher: string } | { keyLength: number; rc2Bits: number }>
> = {
  '1.2.840.113549.1.12.1.3': { keyLength: 24, cipher: 'des-ede3-cbc' },
  '1.2.840.113549.1.12.1.4': { keyLength: 16, cipher: 'des-ede-cbc' },
  '1.2.840.113549.1.12.1.5': { keyLength: 16, rc2Bits: 128 },
  '1.2.840.113549.1.12.1.6': { keyLength: 5, rc2Bits: 40 },
};
const pbes2 = '1.2.840.113549.1.5.13';
const pbkdf2 = '1.2.840.113549.1.5.12';
/** PBKDF2's pseudo-random functions (RFC 8018 B.1), by node's digest name. */
const pbkdf2Digests: Readonly<Record<string, string>> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};
/** PBES2's encryption schemes (RFC 8018 B.2, NIST's AES), by node's cipher name. */
const pbes2Ciphers: Readonly<Record<string, { cipher: string; keyLength: number; ivLength: number }>> = {
  '2.16.840.1.101.3.4.1.2': { cipher: 'aes-128-cbc', keyLength: 16, ivLength: 16 },
  '2.16.840.1.101.3.4.1.22': { cipher: 'aes-192-cbc', keyLength: 24, ivLength: 16 },
  '2.16.840.1.101.3.4.1.42': { cipher: 'aes-256-cbc', keyLength: 32, ivLength: 16 },
  '1.2.840.113549.3.7': { cipher: 'des-ede3-cbc', keyLength: 24, ivLength: 8 },
};

/**
 * Reads an encryption AlgorithmIdentifier and checks its iteration count against the cap; `whose` names it in the
 * refusals ("the private key's").
 */
export function readEncryption(algorithm: ASN1Value | undefined, whose: string): Encryption {
  const [identifier, parameters] = elementsOf(algorithm, 2);
  if (isOid(identifier, pbes2)) return readPbes2(parameters, whose);
  const scheme = lookUpOid(identifier, pkcs12Schemes);
  if (!scheme) throw new InvalidP12Error(`${whose} encryption algorithm is not supported`);
  const [salt, count] = elementsOf(parameters, 2);
  const iterations = checkedIterations(smallInteger(count), whose);
  const saltBytes = octets(salt);
  return {
    encodesPassword: true,
    derivations: 2,
    decrypt(ciphertext, password) {
      const derive = (purpose: typeof pkcs12KeyPurpose.key | typeof pkcs12KeyPurpose.iv, length: number) =>
        pkcs12Kdf({ hash: 'sha1', password, salt: saltBytes, purpose, iterations, length });
      const key = derive(pkcs12KeyPurpose.key, scheme.keyLength);
      const iv = derive(pkcs12KeyPurpose.iv, 8);
      return 'rc2Bits' in scheme
        ? rc2CbcDecrypt(key, scheme.rc2Bits, iv, ciphertext)
        : decipher(scheme.cipher, key, iv, ciphertext);
    },
  };
}

/** PBES2 (RFC 8018 6.2) with PBKDF2: what OpenSSL 3 exports by default, with AES-256-CBC. */
function readPbes2(parameters: ASN1Value | undefined, whose: string): Encryption {
  const [keyDerivation, encryptionScheme] = elementsOf(parameters, 2);
  const [kdfIdentifier, kdfParameters] = elementsOf(keyDerivation, 2);
  if (!isOid(kdfIdentifier, pbkdf2)) throw new InvalidP12Error(`${whose} key derivation is not supported`);
  const [salt, count, ...optional] = elementsOf(kdfParameters, 4);
  const iterations = checkedIterations(smallInteger(count), `${whose} PBKDF2`);
  // keyLength and prf are both optional, in that order: a lone INTEGER is the former.
  const [keyLengthValue, prf] =
    optional.length === 2 || isInteger(optional[0]) ? optional : [undefined, optional[0]];
  const keyLength = keyLengthValue === undefined ? undefined : Number(smallInteger(keyLengthValue));
  const digest = prf === undefined ? 'sha1' : lookUpOid(elementsOf(prf, 2)[0], pbkdf2Digests);
  const [cipherIdentifier, ivValue] = elementsOf(encryptionScheme, 2);
  const cipher = lookUpOid(cipherIdentifier, pbes2Ciphers);
  if (!digest || !cipher) throw new InvalidP12Error(`${whose} encryption algorithm is not supported`);
  const iv = octets(ivValue);
  if (iv.byteLength !== cipher.ivLength || (keyLength !== undefined && keyLength !== cipher.keyLength)) {
    throw new InvalidP12Error(`${whose} encryption parameters do not fit its cipher`);
  }
  const saltBytes = octets(salt);
  return {
    encodesPassword: false,
    derivations: 1,
    decrypt(ciphertext) {
      const key = pbkdf2Sync(new Uint8Array(0), saltBytes, iterations, cipher.keyLength, digest);
      return decipher(cipher.cipher, key, iv, ciphertext);
    },
  };
}

function decipher(cipher: string, key: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array): Buffer {
  const decipher = createDecipheriv(cipher, key, iv);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}
