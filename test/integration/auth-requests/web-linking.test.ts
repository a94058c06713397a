import { generateKeyPairSync } from 'node:crypto';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/**
 * Linking from the web authenticator (docs/protocol.md#device-api): the QR image opens its page with the code in the
 * fragment, and the page links with the code alone unless the directory turned web linking off.
 */
let runtime: TestRuntime;
let scene: AuthScene;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
});
afterAll(async () => {
  await runtime?.stop();
});

async function startLink(identifier: string) {
  return (
    await scene.organization.client.call<{ qrcode: string; code: string }>('POST', '/directory/v3/devices', {
      subject: `dir:${scene.directoryId}`,
      body: { identifier },
    })
  ).body as { qrcode: string; code: string };
}

async function link(code: string, sdkKey?: string) {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const response = await fetch(`${runtime.baseUrl}/device/v3/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...(sdkKey ? { sdk_key: sdkKey } : {}),
      code,
      public_key: publicKey.export({ type: 'spki', format: 'pem' }),
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const webLinking = async (value: 'on' | 'off') => {
  const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
  return updateDirectorySettings(scene.directoryId, { webLinking: value });
};

describe('the QR image of a linking code', () => {
  it("encodes the web authenticator's URL with the code in its fragment; the qrcode URL and the code are as before", async () => {
    const started = await startLink('ada');
    expect(started.qrcode).toBe(`${runtime.baseUrl}/public/v3/qrcodes/${started.code}`);
    expect(started.code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    const image = await fetch(started.qrcode);
    expect(image.headers.get('content-type')).toBe('image/png');
    const png = PNG.sync.read(Buffer.from(await image.arrayBuffer()));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    // The runtime answers at 127.0.0.1, where no passkey can be made: the page it names is at localhost.
    const page = new URL(runtime.baseUrl);
    page.hostname = 'localhost';
    expect(decoded?.data).toBe(`${page.origin}/authenticator/#code=${started.code}`);
  });
});

describe('linking with the code alone', () => {
  it('links by default, and the device is linked', async () => {
    const linked = await link((await startLink('bea')).code);
    expect(linked).toEqual({
      status: 201,
      body: { device_id: expect.any(String), directory_id: scene.directoryId },
    });
  });

  it('is refused once the directory turns web linking off, while a link with an SDK key still works', async () => {
    expect(await webLinking('off')).toMatchObject({ web_linking: 'off' });
    try {
      const code = (await startLink('cleo')).code;
      expect(await link(code)).toEqual({
        status: 403,
        body: {
          error_code: 'HTTP-403',
          error_detail:
            'The directory links devices through its own app only: this link needs one of its SDK keys (sdk_key)',
        },
      });
      // The refusal leaves the code usable.
      expect((await link(code, scene.sdkKey)).status).toBe(201);
    } finally {
      expect(await webLinking('on')).toMatchObject({ web_linking: 'on' });
    }
    expect((await link((await startLink('dora')).code)).status).toBe(201);
  });

  it('still checks an SDK key that is given', async () => {
    const other = await newAuthScene(runtime);
    expect((await link((await startLink('edda')).code, other.sdkKey)).status).toBe(403);
  });
});
