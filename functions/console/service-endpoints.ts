import { type Service, toServiceView } from '#shared/domain/service';
import { type ConsoleEndpoint, type ConsoleTouched, endpoint } from '#shared/http/console-handler';
import { publicBaseUrl } from '#shared/http/event';
import {
  consoleCreateServiceBody,
  consoleServicePolicyBody,
  consoleUpdateServiceBody,
} from '#shared/http/schemas/console-services';
import {
  consoleDirectoryOrganization,
  consoleOrganization,
  consoleService,
} from '#shared/use-cases/console-scope';
import {
  consoleServicePolicy,
  removeConsoleServicePolicy,
  setConsoleServicePolicy,
} from '#shared/use-cases/console-service-policies';
import { createService, genericIconUrl, listServices, updateService } from '#shared/use-cases/services';
import { actingSession } from '#functions/console/required-session';

/** A service as the console shows it: the signed API's view, with whose it is. */
function shown(service: Service, baseUrl: string) {
  return {
    ...toServiceView(service, genericIconUrl(baseUrl)),
    organization_id: service.organizationId,
    directory_id: service.owner.type === 'dir' ? service.owner.id : null,
  };
}

const touchedBy = (service: Service): ConsoleTouched => ({
  organizationId: service.organizationId,
  serviceId: service.id,
  ...(service.owner.type === 'dir' ? { directoryId: service.owner.id } : {}),
});

/**
 * Services in the console (docs/console.md#services), a directory's or the organization's own: list, create, change,
 * and the policy, each through the signed API's own use cases.
 */
export const serviceEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/directories/{id}/services',
    needs: 'read',
    schema: undefined,
    handle: async ({ event, session, parameters }) => {
      const directoryId = parameters.id ?? '';
      await consoleDirectoryOrganization(actingSession(session), directoryId);
      const services = await listServices({ type: 'dir', id: directoryId });
      const baseUrl = publicBaseUrl(event);
      return { status: 200, body: { services: services.map((service) => shown(service, baseUrl)) } };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/directories/{id}/services',
    needs: 'service-write',
    schema: consoleCreateServiceBody,
    handle: async ({ event, session, parameters, body, now }) => {
      const admin = actingSession(session);
      const directoryId = parameters.id ?? '';
      const organizationId = await consoleDirectoryOrganization(admin, directoryId);
      const id = await createService(
        { type: 'dir', id: directoryId },
        {
          name: body.name,
          description: body.description,
          icon: body.icon,
          callbackUrl: body.callback_url,
          active: body.active,
        },
        now,
      );
      const service = await consoleService(admin, id);
      return {
        status: 201,
        body: shown(service, publicBaseUrl(event)),
        targetId: id,
        touched: { organizationId, directoryId, serviceId: id },
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/organizations/{id}/services',
    needs: 'read',
    schema: undefined,
    handle: async ({ event, session, parameters }) => {
      const organizationId = await consoleOrganization(actingSession(session), parameters.id);
      const services = await listServices({ type: 'org', id: organizationId });
      const baseUrl = publicBaseUrl(event);
      return { status: 200, body: { services: services.map((service) => shown(service, baseUrl)) } };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/organizations/{id}/services',
    needs: 'service-write',
    schema: consoleCreateServiceBody,
    handle: async ({ event, session, parameters, body, now }) => {
      const admin = actingSession(session);
      const organizationId = await consoleOrganization(admin, parameters.id);
      const id = await createService(
        { type: 'org', id: organizationId },
        {
          name: body.name,
          description: body.description,
          icon: body.icon,
          callbackUrl: body.callback_url,
          active: body.active,
        },
        now,
      );
      return {
        status: 201,
        body: shown(await consoleService(admin, id), publicBaseUrl(event)),
        targetId: id,
        touched: { organizationId, serviceId: id },
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/services/{id}',
    needs: 'read',
    schema: undefined,
    handle: async ({ event, session, parameters }) => {
      const service = await consoleService(actingSession(session), parameters.id ?? '');
      return {
        status: 200,
        body: { ...shown(service, publicBaseUrl(event)), policy: await consoleServicePolicy(service) },
      };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/services/{id}',
    needs: 'service-write',
    schema: consoleUpdateServiceBody,
    handle: async ({ event, session, parameters, body, now }) => {
      const admin = actingSession(session);
      const service = await consoleService(admin, parameters.id ?? '');
      await updateService(
        service.owner,
        service.id,
        {
          name: body.name,
          description: body.description,
          icon: body.icon,
          callbackUrl: body.callback_url,
          active: body.active,
        },
        now,
      );
      return {
        status: 200,
        body: shown(await consoleService(admin, service.id), publicBaseUrl(event)),
        targetId: service.id,
        touched: touchedBy(service),
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/services/{id}/policy',
    needs: 'read',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const service = await consoleService(actingSession(session), parameters.id ?? '');
      return { status: 200, body: await consoleServicePolicy(service) };
    },
  }),
  endpoint({
    method: 'PUT',
    path: '/services/{id}/policy',
    needs: 'service-write',
    schema: consoleServicePolicyBody,
    handle: async ({ session, parameters, body }) => {
      const service = await consoleService(actingSession(session), parameters.id ?? '');
      return {
        status: 200,
        body: await setConsoleServicePolicy(service, body),
        targetId: service.id,
        touched: touchedBy(service),
      };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/services/{id}/policy',
    needs: 'service-write',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const service = await consoleService(actingSession(session), parameters.id ?? '');
      return {
        status: 200,
        body: await removeConsoleServicePolicy(service),
        targetId: service.id,
        touched: touchedBy(service),
      };
    },
  }),
];
