import type { MiddlewareObj } from '@middy/core';
import { mayActFor } from '#shared/domain/subject';
import { forbidden } from '#shared/errors';
import type { HttpEvent } from '#shared/http/event';
import type { SignedContext } from '#shared/http/signed-state';
import { type EntityType, formatEntity, sameEntity } from '#shared/protocol/entity';
import { getOwnership } from '#shared/store/heads';

/** Which subject an operation acts on: `/organization` needs an organization, `/directory` a directory, and so on. */
export type SubjectRequirement = EntityType | 'any';

const subjectNames: Readonly<Record<EntityType, string>> = {
  org: 'an organization',
  dir: 'a directory',
  svc: 'a service',
};

/** Step 2: `sub` must be the issuer or an entity the issuer owns; a foreign or unknown subject is 403. */
export function authorizeSubject(
  requirement: SubjectRequirement,
): MiddlewareObj<HttpEvent, unknown, Error, SignedContext> {
  return {
    before: async (request) => {
      const caller = request.context.signed.caller;
      if (!caller) throw new Error('authorizeSubject runs after authenticate');
      const { issuer, subject } = caller;
      if (requirement !== 'any' && subject.type !== requirement) {
        throw forbidden(
          `This operation acts on ${subjectNames[requirement]}; sub is ${formatEntity(subject)}`,
        );
      }
      if (sameEntity(issuer, subject)) return;
      const ownership = await getOwnership(subject);
      if (!mayActFor(issuer, subject, ownership)) {
        throw forbidden(`${formatEntity(issuer)} may not act for ${formatEntity(subject)}`);
      }
      // Kept for the use case, which may need the owner too (a new Directory Service records its organization).
      caller.subjectOwnership = ownership;
    },
  };
}
