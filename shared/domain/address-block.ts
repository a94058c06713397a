import { isIP } from 'node:net';

/**
 * The block of addresses one client holds, for counting what it does: an IPv4 address itself, an IPv6 address by its
 * /64 (a subscriber is handed a /64 or more, and could take a new address from it for every request), an IPv4-mapped
 * IPv6 address as the IPv4 address it maps. Anything else is counted as itself.
 */
export function addressBlock(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandedGroups(address.toLowerCase());
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, its embedded IPv4 tail and `::` expanded. */
function expandedGroups(address: string): number[] | undefined {
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  const tail = bare.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  let text = bare;
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${bare.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parts = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const front = parts(head);
  if (rest === undefined) return front.length === 8 ? front : undefined;
  const back = parts(rest);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}
