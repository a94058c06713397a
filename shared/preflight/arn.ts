/** The six parts of an ARN: `arn`, partition, service, region, account, resource (which may hold colons). */
function arnParts(arn: string): string[] | undefined {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0] !== 'arn') return undefined;
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
}

export function regionOf(arn: string): string | undefined {
  return arnParts(arn)?.[3];
}

export function accountOf(arn: string): string | undefined {
  return arnParts(arn)?.[4];
}

/** The part after the account: `role/path/name`, `assumed-role/name/session`, `secret:name-AbCdEf`. */
export function resourceOf(arn: string): string | undefined {
  return arnParts(arn)?.[5];
}

/**
 * Whether `arn` matches `pattern` as IAM's ArnLike does: each of the six colon-separated parts on its own, case
 * sensitive, `*` standing for any run of characters (slashes too) and `?` for one.
 */
export function arnLike(arn: string, pattern: string): boolean {
  const given = arnParts(arn);
  const wanted = arnParts(pattern);
  if (!given || !wanted) return false;
  return wanted.every((part, index) => wildcard(part).test(given[index] as string));
}

function wildcard(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replaceAll('*', '.*').replaceAll('?', '.')}$`, 's');
}
