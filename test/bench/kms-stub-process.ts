import { constants, generateKeyPairSync, type KeyObject, privateEncrypt } from 'node:crypto';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

// A stand-in for AWS KMS's Sign operation, in a process of its own so that its RSA work is not counted as the
// service's: it checks what KMS checks of a Sign request (the target, a SigV4 Authorization, a known key, a digest of
// the algorithm's length), signs with a key it made, and answers after the modelled round trip.
const [latencyMs] = process.argv.slice(2).map(Number) as [number];
const keys = new Map<string, KeyObject>();
for (const bits of [2048, 3072, 4096]) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  keys.set(`rsa-${bits}`, privateKey);
  keys.set(`rsa-${bits}.public`, publicKey);
}
const digestBytes: Record<string, number> = {
  RSASSA_PKCS1_V1_5_SHA_256: 32,
  RSASSA_PKCS1_V1_5_SHA_384: 48,
  RSASSA_PKCS1_V1_5_SHA_512: 64,
};

interface SignRequest {
  KeyId?: string;
  Message?: string;
  MessageType?: string;
  SigningAlgorithm?: string;
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    void (async () => {
      const refuse = (type: string, message: string) => {
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify({ __type: type, message }));
      };
      if (request.headers['x-amz-target'] !== 'TrentService.Sign')
        return refuse('UnknownOperationException', 'only Sign is modelled');
      if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 '))
        return refuse('MissingAuthenticationTokenException', 'no SigV4 signature');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SignRequest;
      const key = keys.get(body.KeyId ?? '');
      const length = digestBytes[body.SigningAlgorithm ?? ''];
      const digest = Buffer.from(body.Message ?? '', 'base64');
      if (!key) return refuse('NotFoundException', `no key ${body.KeyId}`);
      if (body.MessageType !== 'DIGEST' || length === undefined || digest.length !== length)
        return refuse('ValidationException', 'a digest of the signing algorithm is expected');
      const hash = `sha${length * 8}`;
      // RSASSA-PKCS1-v1_5 of a digest is the private-key operation on its DigestInfo with type 1 padding.
      const signature = privateEncrypt(
        { key, padding: constants.RSA_PKCS1_PADDING },
        Buffer.concat([digestInfoPrefix(hash), digest]),
      );
      await sleep(latencyMs);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({
          KeyId: body.KeyId,
          Signature: signature.toString('base64'),
          SigningAlgorithm: body.SigningAlgorithm,
        }),
      );
    })();
  });
});

/** The DER prefix of a PKCS#1 v1.5 DigestInfo (RFC 8017, section 9.2, note 1) for a SHA-2 digest. */
function digestInfoPrefix(hash: string): Buffer {
  const prefixes: Record<string, string> = {
    sha256: '3031300d060960864801650304020105000420',
    sha384: '3041300d060960864801650304020205000430',
    sha512: '3051300d060960864801650304020305000440',
  };
  return Buffer.from(prefixes[hash] as string, 'hex');
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.send?.({
    endpoint: `http://127.0.0.1:${address.port}`,
    publicKeys: Object.fromEntries(
      [2048, 3072, 4096].map((bits) => [
        bits,
        (keys.get(`rsa-${bits}.public`) as KeyObject).export({ type: 'spki', format: 'pem' }),
      ]),
    ),
  });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
