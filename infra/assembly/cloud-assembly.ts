import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A resource of a CloudFormation template, as CDK writes it. */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DependsOn?: string | readonly string[];
}

export interface StackTemplate {
  readonly Resources: Record<string, TemplateResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown }>;
}

/** One stack of a cloud assembly: its template and where its assets were written. */
export interface AssemblyStack {
  readonly artifactId: string;
  readonly stackName: string;
  readonly template: StackTemplate;
  /** The cloud assembly's folder, where each asset is `asset.<hash>`. */
  readonly directory: string;
}

interface Manifest {
  readonly artifacts?: Record<
    string,
    {
      readonly type: string;
      readonly displayName?: string;
      readonly properties?: { readonly templateFile?: string; readonly stackName?: string };
    }
  >;
}

/** The stacks of the cloud assembly in `directory` (a `cdk.out`), in the manifest's order. */
export async function readCloudAssembly(directory: string): Promise<AssemblyStack[]> {
  const manifest = JSON.parse(await readFile(join(directory, 'manifest.json'), 'utf8')) as Manifest;
  const stacks: AssemblyStack[] = [];
  for (const [artifactId, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type !== 'aws:cloudformation:stack' || !artifact.properties?.templateFile) continue;
    const template = JSON.parse(
      await readFile(join(directory, artifact.properties.templateFile), 'utf8'),
    ) as StackTemplate;
    stacks.push({
      artifactId,
      stackName: artifact.properties.stackName ?? artifact.displayName ?? artifactId,
      template,
      directory,
    });
  }
  if (stacks.length === 0) throw new Error(`The cloud assembly in ${directory} holds no stack`);
  return stacks;
}

/** The resources of a template of one type, with their logical ids. */
export function resourcesOfType(
  template: StackTemplate,
  type: string,
): [logicalId: string, resource: TemplateResource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/** The folder of a function's code in the assembly, from the asset path CDK records beside the resource. */
export function assetFolder(stack: AssemblyStack, logicalId: string): string {
  const path = stack.template.Resources[logicalId]?.Metadata?.['aws:asset:path'];
  if (typeof path !== 'string')
    throw new Error(`${logicalId} of ${stack.stackName} names no asset folder (aws:asset:path)`);
  return join(stack.directory, path);
}
