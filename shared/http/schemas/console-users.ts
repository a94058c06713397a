import * as v from 'valibot';
import { seconds } from '#shared/http/schemas/common';

/** POST /console/api/directories/{id}/users/{identifier}/links: a linking code, for as long as the signed API's. */
export const consoleStartLinkBody = v.strictObject({ ttl: v.optional(seconds(30, 3600)) });
