import { addressBlock } from '#shared/domain/address-block';
import {
  type AttemptLimit,
  linkFailuresPerAddress,
  linkFailuresPerDirectory,
  linkRefusalsPerCode,
} from '#shared/domain/limits';
import { rateWindow } from '#shared/domain/push-fatigue';
import { ApiError } from '#shared/errors';
import { logger } from '#shared/log';
import { getSdkKeyDirectory } from '#shared/store/directories';
import { type ItemKey, linkFailuresByAddressKey, linkFailuresByDirectoryKey } from '#shared/store/keys';
import { countAttempt, countCodeRefusal, uncountAttempt } from '#shared/store/link-attempts';
import { type DeviceLinkInput, type LinkedDevice, linkDevice } from '#shared/use-cases/link-device';

/** Refusals that say the code was wrong (unknown, used, expired, locked) or presented wrongly (403). */
const failedAttempt = new Set(['HTTP-404', 'HTTP-403']);

/**
 * POST /device/v3/link within its attempt limits (docs/protocol.md#linking): before the code is looked up or the key
 * parsed, the attempt is counted against the caller's address block and, with an SDK key, against that key's
 * directory; either at its limit is 429 HTTP-429 whatever the code. A failed attempt keeps its counts, and a code
 * presented wrongly is counted against the code too; any other outcome gives the counts back.
 */
export async function linkDeviceWithinLimits(
  input: DeviceLinkInput,
  address: string,
  now: Date,
  recordLink?: (link: LinkedDevice) => Promise<void>,
): ReturnType<typeof linkDevice> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const counted = await countLinkAttempt(input.sdkKey ?? undefined, address, nowSeconds);
  let linked: Awaited<ReturnType<typeof linkDevice>>;
  try {
    linked = await linkDevice(input, now, recordLink);
  } catch (error) {
    if (error instanceof ApiError && failedAttempt.has(error.code)) {
      if (error.code === 'HTTP-403') await countCodeRefusal(input.code, linkRefusalsPerCode, nowSeconds);
    } else {
      await giveBack(counted);
    }
    throw error;
  }
  await giveBack(counted);
  return linked;
}

/** The counters an attempt was counted on; throws HTTP-429, counting nothing, when one is at its limit. */
async function countLinkAttempt(
  sdkKey: string | undefined,
  address: string,
  nowSeconds: number,
): Promise<ItemKey[]> {
  const byAddress = rateWindow(linkFailuresPerAddress, nowSeconds);
  const addressKey = linkFailuresByAddressKey(addressBlock(address), byAddress.start);
  if (!(await countAttempt(addressKey, linkFailuresPerAddress.count, byAddress.end))) {
    throw tooManyFailures('from this address', linkFailuresPerAddress, byAddress.end - nowSeconds);
  }
  const directory = sdkKey === undefined ? undefined : await getSdkKeyDirectory(sdkKey);
  if (!directory) return [addressKey];
  const byDirectory = rateWindow(linkFailuresPerDirectory, nowSeconds);
  const directoryKey = linkFailuresByDirectoryKey(directory.directoryId, byDirectory.start);
  if (!(await countAttempt(directoryKey, linkFailuresPerDirectory.count, byDirectory.end))) {
    await uncountAttempt(addressKey);
    throw tooManyFailures(
      "with this directory's SDK keys",
      linkFailuresPerDirectory,
      byDirectory.end - nowSeconds,
    );
  }
  return [addressKey, directoryKey];
}

/** A link that went through (or failed for another reason than its code) was no guess. */
async function giveBack(counted: readonly ItemKey[]): Promise<void> {
  try {
    await Promise.all(counted.map(uncountAttempt));
  } catch (error) {
    // The answer stands: a count not given back only brings that window's limit nearer.
    logger.warn('A link attempt was not uncounted', { error });
  }
}

function tooManyFailures(where: string, limit: AttemptLimit, retryAfter: number): ApiError {
  return new ApiError(
    'HTTP-429',
    `Too many failed links ${where}: ${limit.count} in ${limit.windowSeconds} seconds; try again in ${retryAfter} seconds`,
    { data: { retry_after: retryAfter } },
  );
}
