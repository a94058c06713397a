import { randomBytes } from 'node:crypto';

/**
 * A well-formed SPKI PEM of an RSA public key with a modulus of `bits` bits (a multiple of 8). The modulus is random,
 * not a product of two primes: nobody holds its private key, which a test of what the service accepts never needs,
 * and keys far larger than anyone could generate in a test come out at once; so does any public exponent.
 */
export function rsaPublicKeyOfBits(bits: number, exponent = 65537n): string {
  const modulus = randomBytes(bits / 8);
  modulus[0] = (modulus[0] as number) | 0x80;
  modulus[modulus.length - 1] = (modulus[modulus.length - 1] as number) | 1;
  const rsaPublicKey = der(
    0x30,
    Buffer.concat([integer(modulus), integer(Buffer.from(exponentHex(exponent), 'hex'))]),
  );
  // rsaEncryption with NULL parameters.
  const algorithm = der(0x30, Buffer.from('06092a864886f70d0101010500', 'hex'));
  const spki = der(
    0x30,
    Buffer.concat([algorithm, der(0x03, Buffer.concat([Buffer.from([0]), rsaPublicKey]))]),
  );
  const lines = spki.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

function der(tag: number, body: Buffer): Buffer {
  if (body.length < 0x80) return Buffer.concat([Buffer.from([tag, body.length]), body]);
  const length: number[] = [];
  for (let rest = body.length; rest > 0; rest >>= 8) length.unshift(rest & 0xff);
  return Buffer.concat([Buffer.from([tag, 0x80 | length.length, ...length]), body]);
}

/** A non-negative INTEGER: a leading zero byte keeps the top bit from reading as a sign. */
function integer(bytes: Buffer): Buffer {
  return der(0x02, (bytes[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function exponentHex(exponent: bigint): string {
  const hex = exponent.toString(16);
  return hex.length % 2 === 0 ? hex : `0${hex}`;
}
