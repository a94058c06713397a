import { describe, expect, it } from 'vitest';
import {
  DestinationRefused,
  destinationPolicyFromEnv,
  refusedAddress,
  resolveDestination,
} from '#shared/webhooks/destination';
import { retryDelaySeconds } from '#shared/webhooks/settings';

const strict = destinationPolicyFromEnv({});
const local = destinationPolicyFromEnv({
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
});
const answers = (addresses: string[]) => async () =>
  addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('refusedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::a9fe:a9fe', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['fe80::1%eth0', 'not an IP address'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedAddress(address, strict)).toContain(range);
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])(
    'allows the public address %s',
    (address) => {
      expect(refusedAddress(address, strict)).toBeUndefined();
    },
  );

  it('allows what the operator allowed, and only that', () => {
    expect(refusedAddress('127.0.0.1', local)).toBeUndefined();
    expect(refusedAddress('::1', local)).toBeUndefined();
    expect(refusedAddress('10.0.0.1', local)).toContain('private');
  });

  it('refuses a malformed allow-list entry at start', () => {
    expect(() => destinationPolicyFromEnv({ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' })).toThrow(/not a CIDR/);
  });
});

describe('resolveDestination', () => {
  it('connects to the first allowed address of those the host resolves to', async () => {
    const destination = await resolveDestination(
      'https://hooks.example.com/x?token=1',
      strict,
      answers(['10.0.0.1', '93.184.216.34']),
    );
    expect(destination).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(destination.url.pathname).toBe('/x');
  });

  it.each([
    [
      'a host that resolves only to private addresses',
      'https://internal.example.com/',
      ['10.0.0.7'],
      /private/,
    ],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data/', [], /linkLocal/],
    ['an IPv6 literal of loopback', 'https://[::1]:8443/', [], /loopback/],
    ['an IPv4-compatible IPv6 literal of loopback', 'https://[::127.0.0.1]/', [], /IPv4-compatible/],
    ['plain http', 'http://hooks.example.com/', ['93.184.216.34'], /http scheme is not allowed/],
    ['another scheme', 'ftp://hooks.example.com/', ['93.184.216.34'], /ftp scheme is not allowed/],
    ['credentials in the URL', 'https://user:pw@hooks.example.com/', ['93.184.216.34'], /credentials/],
    ['a URL that does not parse', 'not a url', [], /does not parse/],
  ])('refuses %s', async (_, url, addresses, reason) => {
    const refusal = await resolveDestination(url, strict, answers(addresses)).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(DestinationRefused);
    expect((refusal as DestinationRefused).transient).toBe(false);
    expect((refusal as Error).message).toMatch(reason);
  });

  it('calls a failed lookup transient: the host may resolve later', async () => {
    const refusal = await resolveDestination('https://nowhere.example/', strict, () =>
      Promise.reject(new Error('ENOTFOUND')),
    ).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ transient: true, message: 'nowhere.example does not resolve' });
  });

  it('allows http and loopback where the operator allows them', async () => {
    await expect(resolveDestination('http://127.0.0.1:9/x', local)).resolves.toMatchObject({
      address: '127.0.0.1',
    });
  });
});

describe('retryDelaySeconds', () => {
  it('doubles from the base, stretched by at most a quarter, capped at 15 minutes', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelaySeconds(attempt, 30, () => 0))).toEqual([
      30, 60, 120, 240,
    ]);
    expect(retryDelaySeconds(1, 30, () => 0.999)).toBe(37);
    expect(retryDelaySeconds(7, 30, () => 0)).toBe(900);
    expect(retryDelaySeconds(20, 30, () => 0.5)).toBe(900);
  });
});
