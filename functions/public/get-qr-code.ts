import QRCode from 'qrcode';
import { notFound } from '#shared/errors';
import { publicBaseUrl } from '#shared/http/event';
import { publicHandler } from '#shared/http/public-handler';
import { linkCodeExists } from '#shared/use-cases/devices';

/**
 * GET /public/v3/qrcodes/{code}: the QR image of a linking code, for the `qrcode` URL of POST /directory/v3/devices.
 * It encodes the web authenticator's URL with the code in its fragment, so a phone's camera opens the page that links
 * and the code never reaches a server log; an app reads the code out of the fragment. Only codes that are still valid
 * have an image.
 */
export const handler = publicHandler(async (event) => {
  const code = event.pathParameters?.code ?? '';
  if (!/^[A-Z0-9]{7,16}$/.test(code) || !(await linkCodeExists(code, new Date()))) {
    throw notFound('No such linking code');
  }
  const png = await QRCode.toBuffer(webLinkUrl(publicBaseUrl(event), code), {
    type: 'png',
    errorCorrectionLevel: 'M',
    margin: 2,
    scale: 8,
  });
  return {
    status: 200,
    body: png.toString('base64'),
    base64: true,
    headers: { 'content-type': 'image/png', 'cache-control': 'no-store' },
  };
});

/** The web authenticator's page, linking with `code`. */
export function webLinkUrl(baseUrl: string, code: string): string {
  return `${baseUrl}/authenticator/#code=${code}`;
}
