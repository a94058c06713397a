import type { MiddlewareObj } from '@middy/core';
import { mayActFor } from '#shared/domain/subject';
import { forbidden } from '#shared/errors';
import type { HttpEvent } from '#shared/http/event';
import type { SignedContext } from '#shared/http/signed-state';
import { type EntityType, formatEntity, sameEntity } from '#shared/protocol/entity';
import { getHead, ownershipOf } from '#shared/store/heads';

/** Which subject an operation acts on: `/organization` needs an organization, `/directory` a directory, and so on. */
export type SubjectRequirement = EntityType | 'any';

const subjectNames: Readonly<Record<EntityType, string>> = {
  org: 'an organization',
  dir: 'a directory',
  svc: 'a service',
  dev: 'a device',
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
      if (sameEntity(issuer, subject)) {
        caller.subjectHead = caller.issuerHead;
        return;
      }
      const head = await getHead(subject);
      if (!mayActFor(issuer, subject, ownershipOf(head))) {
        throw forbidden(`${formatEntity(issuer)} may not act for ${formatEntity(subject)}`);
      }
      // Kept for the use case, which needs the subject's head too (a service's settings, a directory's owner).
      caller.subjectHead = head;
    },
  };
}
