import { publicHandler } from '#shared/http/public-handler';

/**
 * A neutral badge for services without an icon of their own: a rounded square with four tiles, an app and no answer (a
 * check mark beside "asks you to approve" would read as an answer already given).
 */
const icon = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">
<rect width="128" height="128" rx="24" fill="#3b5b7a"/>
<g fill="#fff"><rect x="34" y="34" width="26" height="26" rx="6"/><rect x="68" y="34" width="26" height="26" rx="6"/><rect x="34" y="68" width="26" height="26" rx="6"/><rect x="68" y="68" width="26" height="26" rx="6"/></g>
</svg>
`;

/** GET /public/v3/icons/service.svg: the generic icon URL services get when none is given. */
export const handler = publicHandler(async () => ({
  status: 200,
  body: icon,
  headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' },
}));
