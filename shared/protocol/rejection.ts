/**
 * Why a JOSE object was refused. The protocol layer names the reason; the server turns it into a 401 or 400 with a
 * catalogue code, the client into a typed error.
 */
export type RejectionReason =
  /** Not a well-formed token, header or claim set. */
  | 'malformed'
  /** No usable key for the named `kid`. */
  | 'unknown-key'
  /** The algorithm is not allowed or the signature does not verify. */
  | 'signature'
  /** A time, audience, issuer, subject or identifier claim is wrong. */
  | 'claims'
  /** The token does not describe this message (method, path, query, status or body hash). */
  | 'binding'
  /** Decryption failed: wrong key or tampered ciphertext. */
  | 'decryption'
  /** The decrypted content is not JSON. */
  | 'content';

export class ProtocolRejection extends Error {
  override readonly name = 'ProtocolRejection';

  constructor(
    readonly reason: RejectionReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
