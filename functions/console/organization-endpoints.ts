import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { listSomeOrganizations } from '#shared/store/organizations';

/** Most organizations one answer lists: the operator's chooser is a list to pick from, not an export. */
export const maxConsoleOrganizations = 500;

/**
 * The deployment's organizations for the operator's organization chooser (docs/console.md#the-operators-organization-chooser):
 * id and name, in id order, at most `maxConsoleOrganizations` with `more` saying whether some were left out. A read,
 * not recorded, as the operator's list of every organization's directories is not.
 */
export const organizationEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/organizations',
    needs: 'deployment',
    schema: undefined,
    handle: async () => {
      const { organizations, more } = await listSomeOrganizations(maxConsoleOrganizations);
      return {
        status: 200,
        body: {
          organizations: organizations.map(({ id, name }) => ({ id, name })),
          more,
          max: maxConsoleOrganizations,
        },
      };
    },
  }),
];
