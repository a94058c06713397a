/**
 * The form a name is compared in for uniqueness: Unicode-normalised, trimmed, inner whitespace collapsed and
 * case-folded. Names are shown to users on their devices, so two that differ only in case or spacing must not coexist.
 */
export function nameKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}
