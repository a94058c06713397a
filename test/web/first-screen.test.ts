import { describe, expect, it } from 'vitest';
import { linkingCode, requestId } from '#web/authenticator/fragment';

describe("the page's URL fragment", () => {
  it('gives the linking code of the QR URL', () => {
    expect(linkingCode('#code=ABCDEFGH')).toBe('ABCDEFGH');
    expect(linkingCode('#code=abcd2345')).toBe('ABCD2345');
  });

  it('gives no code for anything that is not one', () => {
    for (const fragment of [
      '',
      '#',
      '#code=',
      '#code=ABC',
      '#code=ABCDEFGHI',
      '#code=ABCDEFG1',
      '#request=x',
    ]) {
      expect(linkingCode(fragment)).toBeUndefined();
    }
  });

  it('gives the request a notification opened the page for', () => {
    expect(requestId('#request=A1B2C3D4-0000-4000-8000-000000000000')).toBe(
      'a1b2c3d4-0000-4000-8000-000000000000',
    );
    expect(requestId('#request=../x')).toBeUndefined();
  });
});
