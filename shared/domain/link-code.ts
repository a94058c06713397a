/**
 * What a linking code may look like on the wire: the codes this service draws are 8 characters of
 * `ABCDEFGHJKLMNPQRSTUVWXYZ23456789`, and a wider shape costs nothing to accept and check.
 */
export const linkCodeShape = /^[A-Z0-9]{7,16}$/;
