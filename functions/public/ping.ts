import { json, publicHandler } from '#shared/http/public-handler';
import { isoSeconds } from '#shared/time';

/** GET /public/v3/ping: the service clock, which the SDKs use to correct their own (docs/protocol.md#public-endpoints). */
export const handler = publicHandler(async () => json(200, { api_time: isoSeconds(new Date()) }));
