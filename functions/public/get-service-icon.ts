import { publicHandler } from '#shared/http/public-handler';

/** A neutral badge for services without an icon of their own: a rounded square with a check mark. */
const icon = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">
<rect width="128" height="128" rx="24" fill="#3b5b7a"/>
<path d="M36 66l18 18 38-40" fill="none" stroke="#fff" stroke-width="12" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`;

/** GET /public/v3/icons/service.svg: the generic icon URL services get when none is given. */
export const handler = publicHandler(async () => ({
  status: 200,
  body: icon,
  headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' },
}));
