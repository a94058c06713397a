import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';

/** A Google service-account key file as the Firebase console downloads it, with its public key for checking grants. */
export interface TestServiceAccount {
  /** The file's fields, to be changed in refusal tests before `JSON.stringify`. */
  readonly file: Record<string, string>;
  /** The file as an SDK sends it in `android_key`. */
  readonly json: string;
  readonly publicKey: KeyObject;
}

/** A fresh service account for `projectId`, with a new RSA key of `modulusLength` bits (2048 as Google's are). */
export function makeServiceAccount(projectId = 'mfa-push-test', modulusLength = 2048): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength });
  const clientEmail = `firebase-adminsdk-${randomBytes(3).toString('hex').slice(0, 5)}@${projectId}.iam.gserviceaccount.com`;
  const clientId = String(100_000_000_000_000_000_000n + BigInt(`0x${randomBytes(8).toString('hex')}`));
  const file = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: clientId,
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
    universe_domain: 'googleapis.com',
  };
  return { file, json: JSON.stringify(file, null, 2), publicKey };
}
