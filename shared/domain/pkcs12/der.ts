import { ASN1Class, ASN1Form, type ASN1Value, parseASN1, parseASN1NoLeftoverBytes } from '@oslojs/asn1';
import { InvalidP12Error, notPasswordFreePkcs12 } from '#shared/domain/pkcs12/invalid-p12-error';

export type { ASN1Value } from '@oslojs/asn1';

const integerTag = 2;
const sequenceTag = 16;
const setTag = 17;

/** Exactly one DER value filling `bytes`. */
export function parseDer(bytes: Uint8Array): ASN1Value {
  return parseASN1NoLeftoverBytes(bytes);
}

/**
 * The elements of a SEQUENCE, or of a SET with `set`, refused past `max` before the rest is read: the library's own
 * `sequence()` reads every element first, copying the remaining bytes for each.
 */
export function elementsOf(
  value: ASN1Value | undefined,
  max: number,
  options: { readonly set?: boolean; readonly tooMany?: string } = {},
): ASN1Value[] {
  const contents = requireKind(
    value,
    ASN1Class.Universal,
    options.set ? setTag : sequenceTag,
    ASN1Form.Constructed,
  ).contents();
  const found: ASN1Value[] = [];
  for (let offset = 0; offset < contents.byteLength;) {
    if (found.length === max) throw new InvalidP12Error(options.tooMany ?? notPasswordFreePkcs12);
    const [element, size] = parseASN1(contents.subarray(offset));
    found.push(element);
    offset += size;
  }
  return found;
}

/** The one value inside an EXPLICIT [tag]. */
export function explicit(value: ASN1Value | undefined, tag: number): ASN1Value {
  const present = requireKind(value, ASN1Class.ContextSpecific, tag, ASN1Form.Constructed);
  return parseDer(present.contents());
}

/** The bytes of an IMPLICIT [tag] OCTET STRING. */
export function implicitOctets(value: ASN1Value | undefined, tag: number): Uint8Array {
  return requireKind(value, ASN1Class.ContextSpecific, tag, ASN1Form.Primitive).contents();
}

/** The bytes of an OCTET STRING. */
export function octets(value: ASN1Value | undefined): Uint8Array {
  return present(value).octetString().value;
}

/** Whether the value is the OBJECT IDENTIFIER `dotted`. */
export function isOid(value: ASN1Value | undefined, dotted: string): boolean {
  return present(value).objectIdentifier().is(dotted);
}

/** The entry of `table` that the OBJECT IDENTIFIER names, if it names one. */
export function lookUpOid<T>(
  value: ASN1Value | undefined,
  table: Readonly<Record<string, T>>,
): T | undefined {
  const identifier = present(value).objectIdentifier();
  return Object.entries(table).find(([dotted]) => identifier.is(dotted))?.[1];
}

/** Whether the value is an INTEGER, for telling optional elements apart. */
export function isInteger(value: ASN1Value | undefined): boolean {
  return value?.class === ASN1Class.Universal && value.tag === integerTag;
}

/** An INTEGER of eight bytes at most: a longer one is refused before the library turns it into a bigint. */
export function smallInteger(value: ASN1Value | undefined): bigint {
  const integer = present(value);
  if (integer.contents().byteLength > 8) throw new InvalidP12Error(notPasswordFreePkcs12);
  return integer.integer().value;
}

function present(value: ASN1Value | undefined): ASN1Value {
  if (value === undefined) throw new InvalidP12Error(notPasswordFreePkcs12);
  return value;
}

function requireKind(
  value: ASN1Value | undefined,
  asn1Class: ASN1Class,
  tag: number,
  form: ASN1Form,
): ASN1Value {
  const found = present(value);
  if (found.class !== asn1Class || found.tag !== tag || found.form !== form) {
    throw new InvalidP12Error(notPasswordFreePkcs12);
  }
  return found;
}
