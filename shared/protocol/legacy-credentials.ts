import { constants, type KeyObject, sign, verify } from 'node:crypto';
import {
  decodeLegacyBase64,
  decryptOaepSha1Block,
  encodeBase64,
  encodeMimeBase64,
  encryptOaepSha1Block,
  type LegacyFailureReason,
  maxOaepSha1Plaintext,
} from '#shared/protocol/legacy-rsa';

/**
 * The LaunchKey v1 credentials: `app_key`, `secret_key` and `signature`, sent as query or form parameters with every
 * v1 call except ping (docs/protocol.md#legacy-v1).
 *
 * What the old clients did (iovation/launchkey-python `launchkey.py` 1.0–1.2, LaunchKey's Ruby gem
 * `lib/launchkey/middleware/signed_request.rb` + `rsa_key.rb`, launchkey-php `lib/LaunchKey/LaunchKey.php` and
 * `src/Service/AbstractApiService.php`, launchkey-java 1.x/2.x `V1ServiceAbstract.java` + `JCECrypto.java`, and the
 * community LaunchKey.NET `LaunchKey.cs`):
 * - `secret_key` = Base64 of one RSA-OAEP (SHA-1, MGF1-SHA1) block, encrypted to the API public key from `GET
 *   /v1/ping`, of a small dictionary `{secret, stamped}` (launchkey.py 1.2 may add `cipher`).
 * - The dictionary is JSON for Ruby, Java, PHP 2015 and .NET, but Python's `str(dict)` — a Python literal with single
 *   quotes, `u'…'` strings under Python 2 and any key order — for launchkey.py, and `{"secret": '…', "stamped": '…'}`
 *   (mixed quotes) for the 2013 PHP library. The v1 API evidently read Python literals.
 * - `stamped` is the "platform date" `%Y-%m-%d %H:%M:%S` in UTC; launchkey.py appends `.ffffff` once it reuses a
 *   cached ping time. The API refused a stamp older than two minutes (docs.launchkey.com API glossary); that check
 *   is the caller's.
 * - `signature` = Base64 of an RSA PKCS#1 v1.5 signature with SHA-256, by the Service's private key, over the raw
 *   ciphertext bytes (not over the Base64 text). All clients agree, so SHA-1 signatures are not accepted.
 * - Python sends `secret_key` as MIME Base64: 76-column lines with LF, which must be tolerated.
 */

export class LegacyCredentialError extends Error {
  override readonly name = 'LegacyCredentialError';

  constructor(
    readonly reason: LegacyFailureReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The only hash the v1 clients signed with. */
export const v1SignatureHash = 'sha256';

export interface V1CredentialsInput {
  readonly appKey: string;
  readonly secret: string;
  readonly apiPublicKey: KeyObject;
  readonly servicePrivateKey: KeyObject;
  readonly now: Date;
  /**
   * `json` (default) writes the dictionary and the Base64 as the Ruby, Java and PHP clients did; `python` as
   * launchkey.py 1.x did: a Python literal and MIME Base64 with line breaks.
   */
  readonly style?: 'json' | 'python';
}

export interface V1Credentials {
  readonly app_key: string;
  readonly secret_key: string;
  readonly signature: string;
}

/** The three query values an implementer sends on a v1 call, built as the old client libraries built them. */
export function buildV1Credentials(input: V1CredentialsInput): V1Credentials {
  const stamped = formatLaunchKeyTime(input.now);
  const blob =
    input.style === 'python'
      ? `{'secret': ${pythonRepr(input.secret)}, 'stamped': ${pythonRepr(stamped)}}`
      : JSON.stringify({ secret: input.secret, stamped });
  const ciphertext = encryptOaepSha1Block(Buffer.from(blob, 'utf8'), input.apiPublicKey);
  if (!ciphertext) {
    throw new LegacyCredentialError(
      'too_large',
      `the secret does not fit one RSA block (${maxOaepSha1Plaintext(input.apiPublicKey)} bytes at most)`,
    );
  }
  const signature = sign(v1SignatureHash, ciphertext, {
    key: input.servicePrivateKey,
    padding: constants.RSA_PKCS1_PADDING,
  });
  return {
    app_key: input.appKey,
    secret_key: input.style === 'python' ? encodeMimeBase64(ciphertext) : encodeBase64(ciphertext),
    signature: encodeBase64(signature),
  };
}

export interface OpenedV1SecretKey {
  readonly secret: string;
  /** When the client stamped the secret; the caller decides whether that is fresh enough. */
  readonly stamped: Date;
}

/**
 * Decrypts a `secret_key` with whichever of the API's private keys fits (current and previous keys during a
 * rotation) and reads the secret and its stamp. Throws LegacyCredentialError: `base64`, `decryption` (no key fits,
 * or the block was altered), `format` (not a `{secret, stamped}` dictionary of strings), `timestamp`.
 */
export function openV1SecretKey(secretKey: string, apiPrivateKeys: readonly KeyObject[]): OpenedV1SecretKey {
  const ciphertext = decodeLegacyBase64(secretKey);
  if (!ciphertext) throw new LegacyCredentialError('base64', 'secret_key is not Base64');
  let plaintext: Buffer | undefined;
  for (const key of apiPrivateKeys) {
    plaintext = decryptOaepSha1Block(ciphertext, key);
    if (plaintext) break;
  }
  if (!plaintext) {
    throw new LegacyCredentialError('decryption', 'secret_key does not decrypt with any API key');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
  } catch (cause) {
    throw new LegacyCredentialError('format', 'the decrypted secret_key is not UTF-8', { cause });
  }
  const fields = parseStringDictionary(text);
  if (!fields) {
    throw new LegacyCredentialError('format', 'the decrypted secret_key is not a dictionary of strings');
  }
  const secret = fields.get('secret');
  const stampedText = fields.get('stamped');
  if (secret === undefined || stampedText === undefined) {
    throw new LegacyCredentialError('format', 'the decrypted secret_key lacks secret or stamped');
  }
  const stamped = parseLaunchKeyTime(stampedText);
  if (!stamped) {
    throw new LegacyCredentialError('timestamp', 'stamped is not a "YYYY-MM-DD HH:MM:SS" UTC time');
  }
  return { secret, stamped };
}

/**
 * Whether `signature` is an RSA PKCS#1 v1.5 SHA-256 signature over the raw bytes of `secret_key` by one of the
 * Service's keys. Malformed Base64 is simply not a valid signature.
 */
export function verifyV1Signature(
  secretKey: string,
  signature: string,
  servicePublicKeys: readonly KeyObject[],
): boolean {
  const data = decodeLegacyBase64(secretKey);
  const signatureBytes = decodeLegacyBase64(signature);
  if (!data || !signatureBytes) return false;
  return servicePublicKeys.some((key) => {
    try {
      return verify(v1SignatureHash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signatureBytes);
    } catch {
      return false;
    }
  });
}

const launchKeyTimeShape = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z?$/;

/**
 * Reads a platform date, `%Y-%m-%d %H:%M:%S` in UTC, also with the fraction of seconds Python's `str(datetime)`
 * adds and in its ISO 8601 spelling (`T`, trailing `Z`). Impossible dates are refused: undefined.
 */
export function parseLaunchKeyTime(text: string): Date | undefined {
  const match = launchKeyTimeShape.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Math.floor(Number(`0.${match[7] ?? '0'}`) * 1000);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  const roundTrips =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return roundTrips ? date : undefined;
}

/** Writes a platform date: `%Y-%m-%d %H:%M:%S` in UTC, the `launchkey_time` of ping and the `stamped` of secrets. */
export function formatLaunchKeyTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** A string as Python 3's repr writes it (quote choice and escapes), for the launchkey.py-style dictionary. */
function pythonRepr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\' || char === quote) out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return out + quote;
}

const simpleEscapes: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * Parses a flat dictionary of string keys and string values written as JSON or as a Python literal (`str(dict)` in
 * Python 2 or 3: single or double quotes, `u`/`b` prefixes, `\xNN`, `\uXXXX`, `\UXXXXXXXX` escapes). In a Python
 * byte string (no prefix under Python 2, `b` under Python 3) `\xNN` is a byte of UTF-8; after `u` it is a code point.
 * Returns undefined for anything else, including duplicate keys and trailing text.
 */
export function parseStringDictionary(text: string): Map<string, string> | undefined {
  let pos = 0;
  const skipSpace = (): void => {
    while (pos < text.length && ' \t\r\n'.includes(text[pos] ?? '')) pos += 1;
  };
  const readString = (): string | undefined => {
    let byteMode = true;
    const prefix = text[pos];
    if (prefix === 'u' || prefix === 'U') {
      byteMode = false;
      pos += 1;
    } else if (prefix === 'b' || prefix === 'B') {
      pos += 1;
    }
    const quote = text[pos];
    if (quote !== "'" && quote !== '"') return undefined;
    pos += 1;
    const parts: (string | number)[] = [];
    let chunk = '';
    for (;;) {
      const char = text[pos];
      if (char === undefined || char.charCodeAt(0) < 0x20) return undefined;
      pos += 1;
      if (char === quote) break;
      if (char !== '\\') {
        chunk += char;
        continue;
      }
      const escape = text[pos];
      if (escape === undefined) return undefined;
      pos += 1;
      const simple = simpleEscapes[escape];
      if (simple !== undefined) {
        chunk += simple;
        continue;
      }
      const width = escape === 'x' ? 2 : escape === 'u' ? 4 : escape === 'U' ? 8 : 0;
      const hex = text.slice(pos, pos + width);
      if (width === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) return undefined;
      pos += width;
      const code = Number.parseInt(hex, 16);
      if (escape === 'x' && byteMode) {
        parts.push(chunk, code);
        chunk = '';
      } else if (escape === 'U') {
        if (code > 0x10ffff) return undefined;
        chunk += String.fromCodePoint(code);
      } else {
        chunk += String.fromCharCode(code);
      }
    }
    parts.push(chunk);
    if (parts.every((part) => typeof part === 'string')) return parts.join('');
    const bytes = Buffer.concat(
      parts.map((part) => (typeof part === 'number' ? Buffer.from([part]) : Buffer.from(part, 'utf8'))),
    );
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return undefined;
    }
  };

  const fields = new Map<string, string>();
  skipSpace();
  if (text[pos] !== '{') return undefined;
  pos += 1;
  skipSpace();
  if (text[pos] === '}') {
    pos += 1;
  } else {
    for (;;) {
      skipSpace();
      const key = readString();
      if (key === undefined || fields.has(key)) return undefined;
      skipSpace();
      if (text[pos] !== ':') return undefined;
      pos += 1;
      skipSpace();
      const value = readString();
      if (value === undefined) return undefined;
      fields.set(key, value);
      skipSpace();
      const separator = text[pos];
      pos += 1;
      if (separator === '}') break;
      if (separator !== ',') return undefined;
    }
  }
  skipSpace();
  return pos === text.length ? fields : undefined;
}
