declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  /** RFC 8188 / RFC 8291 content decryption, as the `web-push` package's own dependency does it. */
  export function decrypt(
    buffer: Buffer,
    params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string },
  ): Buffer;
}
