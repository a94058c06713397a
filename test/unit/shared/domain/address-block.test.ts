import { describe, expect, it } from 'vitest';
import { addressBlock } from '#shared/domain/address-block';

describe('the address block failed links are counted by', () => {
  it.each([
    ['an IPv4 address, itself', '198.51.100.7', '198.51.100.7'],
    ['an IPv6 address, by its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['another address of the same /64, alike', '2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['an IPv6 address written in capitals and compressed', '2001:DB8::7', '2001:db8:0:0::/64'],
    ['loopback', '::1', '0:0:0:0::/64'],
    ['an IPv4-mapped address, as the IPv4 address', '::ffff:127.0.0.1', '127.0.0.1'],
    ['an IPv4-mapped address in hex, as the IPv4 address', '::ffff:7f00:2', '127.0.0.2'],
    ['an address with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['what is no address, itself', 'not-an-address', 'not-an-address'],
  ])('is %s', (_, address, block) => {
    expect(addressBlock(address)).toBe(block);
  });

  it('tells two /64s apart', () => {
    expect(addressBlock('2001:db8:1:2::1')).not.toBe(addressBlock('2001:db8:1:3::1'));
  });
});
