import unhomoglyph from 'unhomoglyph';

/**
 * The form two names that look alike share: Unicode TS #39's skeleton (NFD, each character mapped to its prototype in
 * confusables.txt, NFD again) of the name's NFKC form, trimmed and with inner whitespace collapsed, lower-cased and
 * skeletonised once more, since a case-insensitive comparison must catch `АCME` (Cyrillic А) beside `acme` though
 * the data maps `m` to `rn` and leaves `M` alone. Never shown: `m` becomes `rn`, `I` becomes `l`.
 */
export function nameSkeleton(name: string): string {
  const spaced = name.normalize('NFKC').trim().replace(/\s+/g, ' ');
  return skeleton(skeleton(spaced).toLowerCase());
}

function skeleton(text: string): string {
  return unhomoglyph(text.normalize('NFD')).normalize('NFD');
}
