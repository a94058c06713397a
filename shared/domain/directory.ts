/** A directory as the wire shows it (interface.md §2.6, sdk-compatibility §7.3). */
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

/** What may change on a directory; absent fields stay, null clears a nullable one. */
export interface DirectoryChanges {
  readonly active?: boolean;
  readonly androidKey?: string | null;
  readonly iosCertificateFingerprint?: string | null;
  readonly denialContextInquiryEnabled?: boolean;
  readonly webhookUrl?: string | null;
}
