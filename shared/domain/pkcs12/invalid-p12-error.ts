/** A PKCS#12 upload refused; the message completes `ios_p12: …` for the caller. */
export class InvalidP12Error extends Error {
  override readonly name = 'InvalidP12Error';
}

/** The refusal for anything malformed, unreadable or not decryptable without a password. */
export const notPasswordFreePkcs12 = 'is not a password-free PKCS#12 file';
