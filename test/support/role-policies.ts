/** A statement of an identity policy, as a synthesized template has it. */
export interface PolicyStatementJson {
  readonly Effect?: string;
  readonly Action: unknown;
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

type PolicyDocumentJson = { readonly Statement: PolicyStatementJson[] };

/**
 * Every role of a template, by logical id, with the statements of all its policies: its inline ones (the stack's
 * roles carry their grants inline) and any policy attached to it, so that a test sees a role's grants whichever way
 * they are written.
 */
export function roleStatements(
  resources: Readonly<Record<string, TemplateResource>>,
): Map<string, PolicyStatementJson[]> {
  const byRole = new Map<string, PolicyStatementJson[]>();
  const add = (roleId: string, statements: PolicyStatementJson[]) =>
    byRole.set(roleId, [...(byRole.get(roleId) ?? []), ...statements]);
  for (const [id, resource] of Object.entries(resources)) {
    const properties = resource.Properties ?? {};
    if (resource.Type === 'AWS::IAM::Role') {
      const inline = (properties.Policies ?? []) as { PolicyDocument: PolicyDocumentJson }[];
      add(
        id,
        inline.flatMap((policy) => policy.PolicyDocument.Statement),
      );
    } else if (resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::IAM::ManagedPolicy') {
      for (const role of (properties.Roles ?? []) as { Ref: string }[])
        add(role.Ref, (properties.PolicyDocument as PolicyDocumentJson).Statement);
    }
  }
  return byRole;
}

/** The statements of one role (see {@link roleStatements}). */
export function statementsOfRole(
  resources: Readonly<Record<string, TemplateResource>>,
  roleId: string,
): PolicyStatementJson[] {
  return roleStatements(resources).get(roleId) ?? [];
}

/** Every identity policy statement of a template's roles. */
export function allRoleStatements(
  resources: Readonly<Record<string, TemplateResource>>,
): PolicyStatementJson[] {
  return [...roleStatements(resources).values()].flat();
}
