import * as v from 'valibot';
import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { uuid } from '#shared/http/schemas/common';
import {
  consoleCreateDirectoryBody,
  consoleUpdateDirectoryBody,
} from '#shared/http/schemas/console-directories';
import { ApiError } from '#shared/errors';
import { consoleDirectory } from '#shared/use-cases/console-directories';
import { consoleDirectoryOrganization, consoleOrganization } from '#shared/use-cases/console-scope';
import { createDirectory } from '#shared/use-cases/directories';
import { deleteSdkKey, generateSdkKey, listSdkKeys } from '#shared/use-cases/sdk-keys';
import { updatePlainDirectory } from '#shared/use-cases/directory-changes';
import { actingSession } from '#functions/console/required-session';

/**
 * Directories in the console (docs/console.md#directories): create, change, and their SDK keys, each through the
 * signed API's own use cases, so the same names, limits and refusals hold.
 */
export const directoryEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'POST',
    path: '/directories',
    needs: 'directory-write',
    schema: consoleCreateDirectoryBody,
    handle: async ({ session, body, now }) => {
      const admin = actingSession(session);
      const organizationId = await consoleOrganization(admin, body.organization_id);
      const id = await createDirectory(organizationId, body.name, now);
      return {
        status: 201,
        body: await consoleDirectory(admin, id),
        targetId: id,
        touched: { organizationId, directoryId: id },
      };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/directories/{id}',
    needs: 'directory-write',
    schema: consoleUpdateDirectoryBody,
    handle: async ({ session, parameters, body }) => {
      const admin = actingSession(session);
      const directoryId = parameters.id ?? '';
      const organizationId = await consoleDirectoryOrganization(admin, directoryId);
      await updatePlainDirectory(organizationId, directoryId, {
        active: body.active,
        denialContextInquiryEnabled: body.denial_context_inquiry_enabled,
        webhookUrl: body.webhook_url,
      });
      return {
        status: 200,
        body: await consoleDirectory(admin, directoryId),
        targetId: directoryId,
        touched: { organizationId, directoryId },
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/directories/{id}/sdk-keys',
    needs: 'read',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const directoryId = parameters.id ?? '';
      const organizationId = await consoleDirectoryOrganization(actingSession(session), directoryId);
      return { status: 200, body: { sdk_keys: await listSdkKeys(organizationId, directoryId) } };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/directories/{id}/sdk-keys',
    confirmed: true,
    needs: 'directory-write',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const directoryId = parameters.id ?? '';
      const organizationId = await consoleDirectoryOrganization(actingSession(session), directoryId);
      const sdkKey = await generateSdkKey(organizationId, directoryId);
      return { status: 201, body: { sdk_key: sdkKey }, touched: { organizationId, directoryId } };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/directories/{id}/sdk-keys/{sdkKey}',
    confirmed: true,
    needs: 'directory-write',
    schema: undefined,
    handle: async ({ session, parameters }) => {
      const directoryId = parameters.id ?? '';
      const organizationId = await consoleDirectoryOrganization(actingSession(session), directoryId);
      const sdkKey = parameters.sdkKey ?? '';
      if (!v.is(uuid, sdkKey))
        throw new ApiError('ORG-006', 'That SDK key does not belong to this directory');
      await deleteSdkKey(organizationId, directoryId, sdkKey.toLowerCase());
      return { status: 204, touched: { organizationId, directoryId } };
    },
  }),
];
