import { describe, expect, it } from 'vitest';
import { rc2CbcDecrypt, rc2DecryptBlock, rc2KeySchedule } from '#shared/domain/pkcs12/rc2';

const hex = (text: string) => Buffer.from(text, 'hex');

describe('rc2DecryptBlock', () => {
  // RFC 2268 section 5: key, effective key bits, plaintext, ciphertext.
  it.each([
    ['0000000000000000', 63, '0000000000000000', 'ebb773f993278eff'],
    ['ffffffffffffffff', 64, 'ffffffffffffffff', '278b27e42e2f0d49'],
    ['3000000000000000', 64, '1000000000000001', '30649edf9be7d2c2'],
    ['88', 64, '0000000000000000', '61a8a244adacccf0'],
    ['88bca90e90875a', 64, '0000000000000000', '6ccf4308974c267f'],
    ['88bca90e90875a7f0f79c384627bafb2', 64, '0000000000000000', '1a807d272bbe5db1'],
    ['88bca90e90875a7f0f79c384627bafb2', 128, '0000000000000000', '2269552ab0f85ca6'],
    [
      '88bca90e90875a7f0f79c384627bafb216f80a6f85920584c42fceb0be255daf1e',
      129,
      '0000000000000000',
      '5b78d3a43dfff1f1',
    ],
  ])('decrypts RFC 2268 vector: key %s, %i effective bits', (key, bits, plaintext, ciphertext) => {
    expect(
      Buffer.from(rc2DecryptBlock(rc2KeySchedule(hex(key), bits), hex(ciphertext))).toString('hex'),
    ).toBe(plaintext);
  });

  it('refuses keys and effective lengths outside the RFC', () => {
    expect(() => rc2KeySchedule(new Uint8Array(0), 40)).toThrow(RangeError);
    expect(() => rc2KeySchedule(new Uint8Array(129), 40)).toThrow(RangeError);
    expect(() => rc2KeySchedule(new Uint8Array(5), 0)).toThrow(RangeError);
    expect(() => rc2KeySchedule(new Uint8Array(5), 1025)).toThrow(RangeError);
  });
});

describe('rc2CbcDecrypt', () => {
  const plaintext = 'RC2 in CBC mode, PKCS#7 padded';
  // From OpenSSL's legacy provider: `printf '<plaintext>' | openssl enc -rc2-40-cbc -provider legacy -provider default
  // -K 0102030405 -iv 08090a0b0c0d0e0f`, and the same with -rc2-cbc (128 bits) for the second.
  const rc2With40Bits = '3a94459004686c7a027580ed5188b7fea4d41705dbfb3a2842f9bde4abe413f3';
  const rc2With128Bits = 'cb4c26b09d58cedabde5d0698d7b24145af2838ca31f7dd8738c9f69aa8ac038';

  it("decrypts what OpenSSL encrypted with 40 and 128 effective bits, PKCS#12's two RC2 strengths", () => {
    expect(rc2CbcDecrypt(hex('0102030405'), 40, hex('08090a0b0c0d0e0f'), hex(rc2With40Bits)).toString()).toBe(
      plaintext,
    );
    const key = hex('00112233445566778899aabbccddeeff');
    expect(rc2CbcDecrypt(key, 128, hex('0001020304050607'), hex(rc2With128Bits)).toString()).toBe(plaintext);
  });

  it('refuses a wrong key by its padding, and ciphertext that is not whole blocks', () => {
    expect(() => rc2CbcDecrypt(hex('0102030406'), 40, hex('08090a0b0c0d0e0f'), hex(rc2With40Bits))).toThrow(
      /padding/,
    );
    expect(() =>
      rc2CbcDecrypt(hex('0102030405'), 40, hex('08090a0b0c0d0e0f'), hex(rc2With40Bits).subarray(1)),
    ).toThrow(RangeError);
    expect(() => rc2CbcDecrypt(hex('0102030405'), 40, hex('0809'), hex(rc2With40Bits))).toThrow(RangeError);
  });
});
