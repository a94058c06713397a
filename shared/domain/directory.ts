/** A directory as the wire shows it (docs/protocol.md#objects, docs/protocol.md#objects). */
export interface DirectoryView {
  readonly id: string;
  readonly name: string;
  readonly active: boolean;
  /** Unused, always false; PY reads it. */
  readonly premium: boolean;
  readonly service_ids: readonly string[];
  readonly sdk_keys: readonly string[];
  readonly android_key: string | null;
  readonly ios_certificate_fingerprint: string | null;
  readonly denial_context_inquiry_enabled: boolean;
  readonly webhook_url: string | null;
}

/** An `android_key` that is not a service-account file, as the directory's record keeps it: sealed, shown as given. */
export interface SealedAndroidKey {
  readonly sealed: string;
}

/**
 * A directory as its record reads: the view, except that an `android_key` kept sealed stays sealed until the
 * directory is shown (shared/use-cases/list-directories.ts). A string is a service account's description.
 */
export interface DirectoryRecord extends Omit<DirectoryView, 'android_key'> {
  readonly android_key: string | SealedAndroidKey | null;
}

/** What may change on a directory; absent fields stay, null clears a nullable one. */
export interface DirectoryChanges {
  readonly active?: boolean;
  readonly androidKey?: string | SealedAndroidKey | null;
  readonly iosCertificateFingerprint?: string | null;
  readonly denialContextInquiryEnabled?: boolean;
  readonly webhookUrl?: string | null;
}
