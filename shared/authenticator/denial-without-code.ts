import type { Evaluation } from '#shared/authenticator/evaluate';

/** The body of a denial said in the clear (docs/protocol.md#number-matching). */
export interface DenialWithoutCodeBody {
  readonly deny: { readonly denial_reason: string | null; readonly fraud: boolean };
}

/** Thrown for an answer to a request with number matching that needs the code and was given none. */
export class CodeNeededError extends Error {
  override readonly name = 'CodeNeededError';
}

/**
 * A denial of a request with number matching, without its code: only the attacker who started a sign-in sees the
 * code, so the user denies (and reports fraud) without it. The sealed answer would hide a denial from an approval, so
 * the device says the denial in the clear and the service writes the package. Only a denial goes this way: an answer
 * the device's checks failed (FAILED) is sealed, and like an approval it needs the code.
 */
export function denialWithoutCode(evaluation: Evaluation): DenialWithoutCodeBody {
  if (evaluation.type !== 'DENIED') {
    throw new CodeNeededError(
      `This device's checks answer ${evaluation.type}/${evaluation.reason}, not a denial: only a denial goes without the code the application shows.`,
    );
  }
  return { deny: { denial_reason: evaluation.denialReason, fraud: evaluation.reason === 'FRAUDULENT' } };
}
