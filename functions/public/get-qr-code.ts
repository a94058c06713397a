import QRCode from 'qrcode';
import { linkCodeShape } from '#shared/domain/link-code';
import { notFound } from '#shared/errors';
import { publicBaseUrl } from '#shared/http/event';
import { publicHandler } from '#shared/http/public-handler';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';

/**
 * GET /public/v3/qrcodes/{code}: the QR image of a linking code, for the `qrcode` URL of POST /directory/v3/devices.
 * It encodes the web authenticator's URL with the code in its fragment, so a phone's camera opens the page that links
 * and the code never reaches a server log; an app reads the code out of the fragment. Every well-formed code has an
 * image, valid or not, without a look in the store: the image holds only what its URL already says, and an answer
 * that differed would tell anyone which codes exist without using one up.
 */
export const handler = publicHandler(async (event) => {
  const code = event.pathParameters?.code ?? '';
  if (!linkCodeShape.test(code)) throw notFound('No such linking code');
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

/** The web authenticator's page, linking with `code`: at `localhost` when the API was reached at this machine's IP. */
export function webLinkUrl(baseUrl: string, code: string): string {
  return `${webAuthenticatorUrl(baseUrl)}#code=${code}`;
}
