/**
 * How many of each thing that accumulates one request at a time an entity may hold. Each of these lists lives on one
 * stored item, which cannot grow past 400 KB: without a bound, the request that crossed it would fail with a 500, and
 * so would every later one that adds to that item. Each bound is far above what a tenant uses, and keeps its item far
 * below 400 KB; the sizes below are DynamoDB's measure of the largest item the bound allows, every other field at its
 * own limit with three-byte characters. Reaching a bound is ARG-001, saying what is full and what to do.
 */

/**
 * Public keys of one organization, directory, service or device. A rotation needs two at a time. Their ids (47 bytes
 * each, 4.6 KB at the limit) are a set on the entity's head: a service head at the limit, with every field and its
 * policy at their own limits, is about 28 KB. Every signed request reads all of its issuer's keys, so the bound also
 * bounds that read: 100 keys of 16 384 bits are about 300 KB, 100 of 2 048 bits about 50 KB.
 */
export const maxKeysPerEntity = 100;

/**
 * SDK keys of one directory: a set on the directory's record (36 bytes each, 3.6 KB at the limit), which every
 * authorization request reads. Authenticator apps carry one, and a rotation needs two at a time.
 */
export const maxSdkKeysPerDirectory = 100;

/**
 * Directory Services of one directory: their ids are a set on the directory's record (36 bytes each, 70 KB at the
 * limit), which every authorization request reads; the record at the limit, with 100 SDK keys and every other field at
 * its own limit, is about 93 KB. Ten thousand would be about 374 KB, too close to 400 KB. Services cannot be removed,
 * so a directory that reaches this has to put further services in another directory (or make them Organization
 * Services, which are not listed on a directory's record).
 */
export const maxServicesPerDirectory = 2_000;

/**
 * Devices of one directory user, linked and pending alike: a map on the user's record, which every authorization
 * request reads (at most about 770 bytes each with a 100-character name and type, 76 KB at the limit; about 180
 * bytes for a pending device). A device waiting for its code counts until the code expires: a new link at the limit
 * first removes the user's pending devices whose code has expired.
 */
export const maxDevicesPerUser = 100;

/**
 * Services one directory user has a session with at a time: a map on the user's record, by service (about 225 bytes
 * each, 55 KB at the limit). Restarting a session with a service does not count again. With the devices at their own
 * limit, an identifier of 256 characters and a TOTP, the user's record is about 132 KB.
 */
export const maxSessionsPerUser = 250;

/**
 * Failed attempts at linking a device, which guess at an 8-character code (about 40 bits) valid for up to an hour.
 * A failure is a link refused for its code (unknown, used, expired or locked: 404) or for how the code was presented
 * (an SDK key that is not its directory's, or none where the directory wants one: 403). Counted in fixed windows
 * starting at multiples of their length; an attempt counts while it is under way, so concurrent attempts cannot
 * overshoot, and a link that goes through (or fails for another reason) gives its count back.
 */
export interface AttemptLimit {
  readonly count: number;
  readonly windowSeconds: number;
}

/**
 * Per source address (an IPv6 address by its /64, which one subscriber usually holds whole): 10 failures in 10
 * minutes, 60 guesses an hour, which a person mistyping a code never reaches. Past it, every link from that address is
 * refused until the window ends, a right code too: otherwise the refusal would only slow the guessing down.
 */
export const linkFailuresPerAddress: AttemptLimit = { count: 10, windowSeconds: 600 };

/**
 * Per directory, for attempts that carry one of its SDK keys (its own app's links): 100 failures in 10 minutes, against
 * guessing spread over many addresses. Past it, links with the directory's SDK keys are refused until the window ends.
 * Its SDK keys ship in its app, so anyone can use this up and hold the directory's app links back for a window:
 * sized far above what mistyping users make, and no worse than the route's own throttle (docs/deploy.md).
 */
export const linkFailuresPerDirectory: AttemptLimit = { count: 100, windowSeconds: 600 };

/**
 * Per code: a code presented wrongly 5 times (an SDK key not of its directory, or none where the directory wants one)
 * is locked: used up, as if it had expired. Whoever presents it has found a code that exists.
 */
export const linkRefusalsPerCode = 5;
