import { toServiceView } from '#shared/domain/service';
import { created, noContent, ok } from '#shared/http/reply';
import {
  createServiceBody,
  listServicesByIdsBody,
  serviceIdBody,
  setServicePolicyBody,
  updateServiceBody,
} from '#shared/http/schemas/services';
import { signedHandler } from '#shared/http/signed-handler';
import { readServicePolicy, removeServicePolicy, setServicePolicy } from '#shared/use-cases/service-policies';
import {
  createService,
  genericIconUrl,
  listServices,
  listServicesByIds,
  updateService,
} from '#shared/use-cases/services';

/**
 * The service endpoints, written once for both owners: `/organization/v3/...` manages Organization Services (subject
 * `org:`), `/directory/v3/...` a directory's Directory Services (subject `dir:`). The subject is the owner.
 */
export type ServiceOwnerType = 'org' | 'dir';

interface ServiceBodyFields {
  readonly name?: string | null;
  readonly description?: string | null;
  readonly icon?: string | null;
  readonly callback_url?: string | null;
  readonly active?: boolean | null;
}

/** The service fields of a create or update body, from the wire's names to the domain's. */
function serviceFields<Body extends ServiceBodyFields>(body: Body) {
  return {
    name: body.name as Body['name'],
    description: body.description,
    icon: body.icon,
    callbackUrl: body.callback_url,
    active: body.active,
  };
}

export const createServiceEndpoint = (subject: ServiceOwnerType) =>
  signedHandler({
    subject,
    body: createServiceBody,
    handle: async ({ caller, body, receivedAt }) => {
      const id = await createService(caller.subject, serviceFields(body), receivedAt, caller.subjectHead);
      return created({ id });
    },
  });

export const listServicesEndpoint = (subject: ServiceOwnerType) =>
  signedHandler({
    subject,
    body: 'none',
    handle: async ({ caller, baseUrl }) => {
      const icon = genericIconUrl(baseUrl);
      return ok((await listServices(caller.subject)).map((service) => toServiceView(service, icon)));
    },
  });

export const listServicesByIdsEndpoint = (subject: ServiceOwnerType) =>
  signedHandler({
    subject,
    body: listServicesByIdsBody,
    handle: async ({ caller, body, baseUrl }) => {
      const icon = genericIconUrl(baseUrl);
      const services = await listServicesByIds(caller.subject, body.service_ids);
      return ok(services.map((service) => toServiceView(service, icon)));
    },
  });

export const updateServiceEndpoint = (subject: ServiceOwnerType) =>
  signedHandler({
    subject,
    body: updateServiceBody,
    handle: async ({ caller, body, receivedAt }) => {
      await updateService(caller.subject, body.service_id, serviceFields(body), receivedAt);
      return noContent();
    },
  });

export const getServicePolicyEndpoint = (subject: ServiceOwnerType) =>
  signedHandler({
    subject,
    body: serviceIdBody,
    handle: async ({ caller, body }) => ok(await readServicePolicy(caller.subject, body.service_id)),
  });

export const setServicePolicyEndpoint = (subject: ServiceOwnerType) =>
  signedHandler({
    subject,
    body: setServicePolicyBody,
    handle: async ({ caller, body }) => {
      await setServicePolicy(caller.subject, body.service_id, body.policy);
      return noContent();
    },
  });

export const removeServicePolicyEndpoint = (subject: ServiceOwnerType) =>
  signedHandler({
    subject,
    body: serviceIdBody,
    handle: async ({ caller, body }) => {
      await removeServicePolicy(caller.subject, body.service_id);
      return noContent();
    },
  });
