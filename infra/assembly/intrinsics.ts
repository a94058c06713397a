/**
 * CloudFormation's intrinsic functions over the values a local deployment gives each resource, as CloudFormation
 * resolves them at deploy: what a function's environment, a route's target or a custom resource's properties hold.
 */
export interface ResolvedResources {
  /** `Ref` of a resource or a pseudo parameter (`AWS::Region`). */
  ref(logicalId: string): Promise<string>;
  /** `Fn::GetAtt`. */
  attribute(logicalId: string, name: string): Promise<string>;
  /** The value of a `{{resolve:secretsmanager:<secret id>:SecretString:<json key>:…}}` reference. */
  secretValue(secretId: string, jsonKey: string | undefined): Promise<string>;
}

export class UnsupportedIntrinsicError extends Error {
  override readonly name = 'UnsupportedIntrinsicError';
}

/** Resolves every intrinsic function in `value`, then every dynamic reference in its strings. */
export async function resolveValue(value: unknown, resources: ResolvedResources): Promise<unknown> {
  if (typeof value === 'string') return resolveDynamicReferences(value, resources);
  if (Array.isArray(value)) return Promise.all(value.map((each) => resolveValue(each, resources)));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
    return resolveValue(await intrinsic(first[0], first[1], resources), resources);
  }
  return Object.fromEntries(
    await Promise.all(entries.map(async ([key, each]) => [key, await resolveValue(each, resources)])),
  );
}

/** A resolved value that must be a string (an environment variable, an ARN). */
export async function resolveString(value: unknown, resources: ResolvedResources): Promise<string> {
  const resolved = await resolveValue(value, resources);
  if (typeof resolved === 'string') return resolved;
  if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
  throw new UnsupportedIntrinsicError(`Expected a string, got ${JSON.stringify(resolved)}`);
}

async function intrinsic(name: string, argument: unknown, resources: ResolvedResources): Promise<unknown> {
  switch (name) {
    case 'Ref':
      return resources.ref(String(argument));
    case 'Fn::GetAtt': {
      const [logicalId, attribute] = Array.isArray(argument)
        ? (argument as string[])
        : String(argument).split(/\.(.*)/s);
      return resources.attribute(String(logicalId), String(attribute));
    }
    case 'Fn::Join': {
      const [separator, parts] = argument as [string, unknown];
      const list = (await resolveValue(parts, resources)) as unknown[];
      return list.map(String).join(separator);
    }
    case 'Fn::Select': {
      const [index, list] = (await resolveValue(argument, resources)) as [string | number, unknown[]];
      return list[Number(index)];
    }
    case 'Fn::Split': {
      const [separator, text] = argument as [string, unknown];
      return (await resolveString(text, resources)).split(separator);
    }
    case 'Fn::Sub':
      return substitute(argument, resources);
    case 'Fn::Base64':
      return Buffer.from(await resolveString(argument, resources)).toString('base64');
    default:
      throw new UnsupportedIntrinsicError(`${name} is not run locally (${JSON.stringify(argument)})`);
  }
}

async function substitute(argument: unknown, resources: ResolvedResources): Promise<string> {
  const [text, variables] = Array.isArray(argument)
    ? (argument as [string, Record<string, unknown>])
    : [String(argument), {}];
  const values = new Map<string, string>();
  for (const [name, each] of Object.entries(variables))
    values.set(name, await resolveString(each, resources));
  const names = [...text.matchAll(/\$\{([^!}][^}]*)\}/g)].map((match) => match[1] as string);
  for (const name of names) {
    if (values.has(name)) continue;
    const [logicalId, attribute] = name.split(/\.(.*)/s) as [string, string | undefined];
    values.set(
      name,
      attribute === undefined
        ? await resources.ref(logicalId)
        : await resources.attribute(logicalId, attribute),
    );
  }
  return text
    .replace(/\$\{([^!}][^}]*)\}/g, (_, name: string) => values.get(name) ?? '')
    .replace(/\$\{!/g, '${');
}

const dynamicReference = /\{\{resolve:([a-z-]+):([^}]*)\}\}/g;

/** `{{resolve:secretsmanager:<id>:SecretString:<json key>:<stage>:<version>}}`, as CloudFormation fills it in. */
async function resolveDynamicReferences(text: string, resources: ResolvedResources): Promise<string> {
  const references = [...text.matchAll(dynamicReference)];
  if (references.length === 0) return text;
  const values: string[] = [];
  for (const [whole, service, reference] of references) {
    if (service !== 'secretsmanager')
      throw new UnsupportedIntrinsicError(`The dynamic reference ${whole} is not run locally`);
    // The id is an ARN (with colons of its own) or a name; the parts after it are fixed in number.
    const parts = (reference as string).split(':');
    const tail = parts.length >= 7 && parts[0] === 'arn' ? parts.slice(7) : parts.slice(1);
    const secretId = parts.slice(0, parts.length - tail.length).join(':');
    const [field = 'SecretString', jsonKey] = tail;
    if (field !== 'SecretString')
      throw new UnsupportedIntrinsicError(`The dynamic reference ${whole} names ${field}, not SecretString`);
    values.push(await resources.secretValue(secretId, jsonKey || undefined));
  }
  let index = 0;
  return text.replace(dynamicReference, () => values[index++] as string);
}
