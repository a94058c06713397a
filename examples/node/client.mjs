#!/usr/bin/env node
// A complete raw-HTTP client of the service in plain Node (≥ 20) with node:crypto alone, written from
// docs/protocol.md: it signs requests, encrypts bodies, verifies and decrypts answers, and opens the device's answer.
// Nothing here comes from the project or npm, so it reads as a recipe for any other language.
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  randomUUID,
  sign,
  timingSafeEqual,
  verify,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const usage = `Usage:
  node client.mjs <base-url> <issuer> <private-key.pem> directories
  node client.mjs <base-url> <issuer> <private-key.pem> auth <username> [--subject svc:<id>] [--context <text>]

  directories   list the organization's directories (issuer org:<id>)
  auth          ask <username> to approve, wait for the answer and print it decrypted (issuer svc:<id>, or
                org:<id> / dir:<id> with --subject svc:<id>)

Options:
  --sign RS256|RS512                  request JWT algorithm (default RS512)
  --encrypt RSA-OAEP|RSA-OAEP-256     request body key encryption (default RSA-OAEP-256)`;

// docs/protocol.md#dialects: the LaunchKey SDKs' spelling. The other one is API-JWT, aud "api" and X-API-JWT.
const scheme = 'IOV-JWT';
const apiIdentity = 'lka';
const jwtHeader = 'x-iov-jwt';
const keyIdHeader = 'x-iov-key-id';
// docs/protocol.md#time-and-replay: the clock difference the service allows, and the SDKs' token lifetime.
const leewaySeconds = 30;
const lifetimeSeconds = 5;

const signatureHashes = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };
const oaepHashes = { 'RSA-OAEP': 'sha1', 'RSA-OAEP-256': 'sha256' };
const bodyHashes = { S256: 'sha256', S384: 'sha384', S512: 'sha512' };

const base64url = (bytes) => Buffer.from(bytes).toString('base64url');
const fromBase64url = (text) => Buffer.from(text, 'base64url');
const json = (text) => JSON.parse(fromBase64url(text).toString('utf8'));

/** docs/protocol.md#key-ids: MD5 of the DER SubjectPublicKeyInfo, lowercase hex pairs joined by colons. */
function keyId(publicKey) {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('md5').update(der).digest('hex').match(/../g).join(':');
}

// ---- JWS (RFC 7515): RSASSA-PKCS1-v1_5 over `header.claims` ---------------------------------------------------

function signJwt(header, claims, privateKey) {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${base64url(sign(signatureHashes[header.alg], Buffer.from(input), privateKey))}`;
}

function decodeJwt(token) {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('the response JWT is not a compact JWS');
  return { header: json(parts[0]), claims: json(parts[1]), input: `${parts[0]}.${parts[1]}`, parts };
}

// ---- JWE (RFC 7516) with A256CBC-HS512 (RFC 7518 §5.2) --------------------------------------------------------

/** docs/protocol.md#request-bodies: a JSON value as a compact JWE to `recipient` ({ kid, publicKey }). */
function encryptJwe(value, recipient, alg) {
  const protectedHeader = base64url(JSON.stringify({ alg, enc: 'A256CBC-HS512', kid: recipient.kid }));
  // The 64-byte CEK is two keys: HMAC-SHA-512 takes the first half, AES-256-CBC the second.
  const cek = randomBytes(64);
  const iv = randomBytes(16);
  const encryptedKey = publicEncrypt(
    { key: recipient.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: oaepHashes[alg] },
    cek,
  );
  const cipher = createCipheriv('aes-256-cbc', cek.subarray(32), iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  const tag = authenticationTag(cek.subarray(0, 32), protectedHeader, iv, ciphertext);
  return [protectedHeader, encryptedKey, iv, ciphertext, tag]
    .map((part) => (typeof part === 'string' ? part : base64url(part)))
    .join('.');
}

/** Opens a compact JWE with the private key its `kid` names in `keys` (a Map of kid → private key). */
function decryptJwe(jwe, keys) {
  const parts = String(jwe).split('.');
  if (parts.length !== 5) throw new Error('not a compact JWE');
  const [protectedHeader, encryptedKey, iv, ciphertext, tag] = parts;
  const { alg, enc, kid } = json(protectedHeader);
  if (!Object.hasOwn(oaepHashes, alg) || enc !== 'A256CBC-HS512') {
    throw new Error(`JWE ${alg}/${enc} refused`);
  }
  const privateKey = keys.get(kid);
  if (!privateKey) throw new Error(`the JWE is encrypted to ${kid}, not to a key of ours`);
  const cek = privateDecrypt(
    { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: oaepHashes[alg] },
    fromBase64url(encryptedKey),
  );
  if (cek.length !== 64) throw new Error('the JWE content key is not 64 bytes');
  const expected = authenticationTag(
    cek.subarray(0, 32),
    protectedHeader,
    fromBase64url(iv),
    fromBase64url(ciphertext),
  );
  const received = fromBase64url(tag);
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) {
    throw new Error('the JWE authentication tag does not match');
  }
  const decipher = createDecipheriv('aes-256-cbc', cek.subarray(32), fromBase64url(iv));
  const plaintext = Buffer.concat([decipher.update(fromBase64url(ciphertext)), decipher.final()]);
  return JSON.parse(plaintext.toString('utf8'));
}

// RFC 7518 §5.2.2.1: HMAC-SHA-512 over AAD ‖ IV ‖ ciphertext ‖ AL, cut to 32 bytes. The AAD is the protected header
// exactly as it travels (base64url text), and AL is its length in bits as a 64-bit big-endian integer.
function authenticationTag(macKey, aad, iv, ciphertext) {
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(Buffer.byteLength(aad, 'ascii') * 8));
  const mac = createHmac('sha512', macKey).update(aad, 'ascii').update(iv).update(ciphertext).update(al);
  return mac.digest().subarray(0, 32);
}

// ---- Signed calls -------------------------------------------------------------------------------------------------

class Client {
  constructor({ baseUrl, issuer, privateKeyPem, signature, encryption }) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.issuer = issuer;
    this.privateKey = createPrivateKey(privateKeyPem);
    this.kid = keyId(createPublicKey(this.privateKey));
    this.signature = signature;
    this.encryption = encryption;
    this.apiKeys = new Map();
  }

  /** The service's clock (docs/protocol.md#public-endpoints), so that iat/nbf/exp land inside its window. */
  async now() {
    if (this.offsetSeconds === undefined) {
      const { api_time: apiTime } = await (await fetch(`${this.baseUrl}/public/v3/ping`)).json();
      const serverMs = Date.parse(apiTime);
      if (Number.isNaN(serverMs)) throw new Error('/public/v3/ping gave no api_time');
      this.offsetSeconds = Math.round((serverMs - Date.now()) / 1000);
    }
    return Math.floor(Date.now() / 1000) + this.offsetSeconds;
  }

  /** An API public key, the current one (no kid) or one by kid; PEM text, its kid in a header we check. */
  async apiKey(kid) {
    if (kid !== undefined && this.apiKeys.has(kid)) return { kid, publicKey: this.apiKeys.get(kid) };
    // A kid from a response header goes into a URL: only the shape a kid has (docs/protocol.md#key-ids).
    if (kid !== undefined && !/^[0-9a-f]{2}(:[0-9a-f]{2}){15}$/.test(kid)) throw new Error(`bad kid ${kid}`);
    const path = kid === undefined ? '/public/v3/public-key' : `/public/v3/public-key/${kid}`;
    const response = await fetch(`${this.baseUrl}${path}`);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    const publicKey = createPublicKey(await response.text());
    const actual = keyId(publicKey);
    if (actual !== response.headers.get(keyIdHeader) || (kid !== undefined && actual !== kid)) {
      throw new Error(`GET ${path} returned a key whose kid is ${actual}`);
    }
    this.apiKeys.set(actual, publicKey);
    return { kid: actual, publicKey };
  }

  /**
   * Signs and sends one request (docs/protocol.md#signed-requests), verifies the answer and returns its status and
   * decrypted body. `subject` is the entity acted for (docs/protocol.md#subjects), the issuer unless given.
   */
  async call(method, pathAndQuery, { subject = this.issuer, body } = {}) {
    const queryAt = pathAndQuery.indexOf('?');
    const path = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
    const query = queryAt === -1 ? '' : pathAndQuery.slice(queryAt + 1);
    // docs/protocol.md#request-bodies: every body is a JWE to the API's current key.
    const payload = body === undefined ? undefined : encryptJwe(body, await this.apiKey(), this.encryption);
    const now = await this.now();
    const jti = randomUUID();
    // docs/protocol.md#the-request-claim and #body-hash: hash and func only when there is a body.
    const request = {
      meth: method,
      path,
      ...(query ? { query } : {}),
      ...(payload ? { hash: createHash('sha256').update(payload).digest('hex'), func: 'S256' } : {}),
    };
    const claims = {
      iss: this.issuer,
      sub: subject,
      aud: apiIdentity,
      iat: now,
      nbf: now,
      exp: now + lifetimeSeconds,
      jti,
      request,
    };
    const token = signJwt({ alg: this.signature, typ: 'JWT', kid: this.kid }, claims, this.privateKey);
    const response = await fetch(`${this.baseUrl}${pathAndQuery}`, {
      method,
      headers: {
        authorization: `${scheme} ${token}`,
        ...(payload ? { 'content-type': 'application/jose' } : {}),
      },
      body: payload,
      redirect: 'manual',
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    await this.verifyResponse(response, bytes, { jti, subject });
    if (bytes.length === 0) return { status: response.status, body: undefined };
    // docs/protocol.md#errors: 401 and 5xx bodies are plain JSON; every other body is a JWE to our key.
    const plain = response.status === 401 || response.status >= 500;
    const value = plain
      ? JSON.parse(bytes.toString('utf8'))
      : decryptJwe(bytes.toString('ascii'), this.keys());
    return { status: response.status, body: value };
  }

  /** The private keys answers are encrypted to: here, the one key we sign with. */
  keys() {
    return new Map([[this.kid, this.privateKey]]);
  }

  /** docs/protocol.md#verifying-a-response: nothing in an answer is trusted before its JWT checks out. */
  async verifyResponse(response, body, { jti, subject }) {
    const token = response.headers.get(jwtHeader);
    if (!token) throw new Error(`the ${response.status} answer has no ${jwtHeader} header`);
    const { header, claims, input, parts } = decodeJwt(token);
    if (!Object.hasOwn(signatureHashes, header.alg) || typeof header.kid !== 'string') {
      throw new Error(`response JWT alg ${header.alg} or kid ${header.kid} refused`);
    }
    const { publicKey } = await this.apiKey(header.kid);
    if (!verify(signatureHashes[header.alg], Buffer.from(input), publicKey, fromBase64url(parts[2]))) {
      throw new Error('the response JWT signature does not verify');
    }
    const now = await this.now();
    const claim = claims.response ?? {};
    const checks = [
      [claims.iss === apiIdentity, `iss is not ${apiIdentity}`],
      [[claims.aud].flat().includes(this.issuer), 'aud is not our issuer'],
      [claims.sub === subject, 'sub is not the subject we asked for'],
      [claims.jti === jti, "jti is not our request's"],
      [claims.iat <= now + leewaySeconds && claims.nbf <= now + leewaySeconds, 'it is not valid yet'],
      [claims.exp > now - leewaySeconds, 'it has expired'],
      [claim.status === response.status, `response.status ${claim.status} is not ${response.status}`],
      [claim.location === (response.headers.get('location') ?? undefined), 'response.location differs'],
      [claim.cache === (response.headers.get('cache-control') ?? undefined), 'response.cache differs'],
      [
        body.length === 0
          ? claim.hash === undefined && claim.func === undefined
          : Object.hasOwn(bodyHashes, claim.func) &&
            claim.hash === createHash(bodyHashes[claim.func]).update(body).digest('hex'),
        'the body hash does not match',
      ],
    ];
    const failed = checks.find(([ok]) => !ok);
    if (failed) throw new Error(`the response JWT does not describe this answer: ${failed[1]}`);
  }
}

// ---- The program ------------------------------------------------------------------------------------------------

class Refusal extends Error {}

/** A 4xx or 5xx answer as one line: status, error code and detail (docs/protocol.md#error-codes). */
function accepted({ status, body }) {
  if (status < 400) return body;
  throw new Refusal(`refused: ${status} ${body?.error_code ?? ''} ${body?.error_detail ?? ''}`.trim());
}

async function listDirectories(client) {
  console.log(JSON.stringify(accepted(await client.call('GET', '/organization/v3/directories')), null, 2));
}

/** docs/protocol.md#creating-a-request, #states and #auth_jwe: ask, poll until answered, open the device's answer. */
async function authorize(client, username, { subject, context }) {
  const created = accepted(
    await client.call('POST', '/service/v3/auths', {
      subject,
      body: { username, ...(context ? { context } : {}) },
    }),
  );
  console.log(`auth request ${created.auth_request}: waiting for ${username} to answer`);
  for (;;) {
    await sleep(1000);
    const polled = await client.call('GET', `/service/v3/auths/${created.auth_request}`, { subject });
    if (polled.status === 204) continue;
    if (polled.status === 408) throw new Refusal(`auth request ${created.auth_request} expired unanswered`);
    const answer = accepted(polled);
    console.log(JSON.stringify(decryptJwe(answer.auth_jwe, client.keys()), null, 2));
    return;
  }
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        subject: { type: 'string' },
        context: { type: 'string' },
        sign: { type: 'string', default: 'RS512' },
        encrypt: { type: 'string', default: 'RSA-OAEP-256' },
      },
    });
  } catch (error) {
    return fail(2, `${error.message}\n${usage}`);
  }
  const { values, positionals } = parsed;
  const [baseUrl, issuer, keyPath, command, username] = positionals;
  const known = (command === 'directories' && !username) || (command === 'auth' && username);
  const algorithms = ['RS256', 'RS512'].includes(values.sign) && Object.hasOwn(oaepHashes, values.encrypt);
  if (!known || !algorithms || positionals.length > 5) return fail(2, usage);
  try {
    const client = new Client({
      baseUrl,
      issuer,
      privateKeyPem: readFileSync(keyPath, 'utf8'),
      signature: values.sign,
      encryption: values.encrypt,
    });
    if (command === 'directories') await listDirectories(client);
    else await authorize(client, username, { subject: values.subject ?? issuer, context: values.context });
  } catch (error) {
    const cause = error.cause ? ` (${error.cause.message})` : '';
    fail(1, error instanceof Refusal ? error.message : `error: ${error.message}${cause}`);
  }
}

function fail(code, message) {
  console.error(message);
  process.exitCode = code;
}

await main();
