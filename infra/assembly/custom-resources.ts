import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type { InvokeResult } from '#infra/assembly/function-pool';

/** A custom resource of the template, resolved, and the function that handles its events. */
export interface CustomResourceDefinition {
  readonly logicalId: string;
  readonly resourceType: string;
  readonly serviceToken: string;
  readonly properties: Record<string, unknown>;
  /** The logical id of the provider's onEvent function. */
  readonly onEvent: string;
  readonly stackId: string;
}

/** What a deployment did with a custom resource, and what it now is. */
export interface CustomResourceRun {
  readonly action: 'created' | 'updated' | 'replaced' | 'unchanged';
  readonly physicalResourceId: string;
  readonly data: Record<string, string>;
}

interface Deployed {
  readonly resourceType: string;
  readonly serviceToken: string;
  readonly onEvent: string;
  readonly properties: Record<string, unknown>;
  readonly physicalResourceId: string;
  readonly data: Record<string, string>;
}

type Invoke = (logicalId: string, event: unknown) => Promise<InvokeResult>;

/**
 * The custom resources of a local deployment, driven as CloudFormation drives them through CDK's provider framework:
 * Create for a new one, Update when its properties changed (then Delete of the old one when the update returned another
 * physical id), nothing when they did not, and Delete for one the template no longer has. What each returned is kept
 * beside the data, as CloudFormation keeps it between deployments.
 */
export class CustomResources {
  private state: Promise<Record<string, Deployed>> | undefined;

  constructor(
    private readonly file: string,
    private readonly invoke: Invoke,
  ) {}

  async apply(definition: CustomResourceDefinition): Promise<CustomResourceRun> {
    const state = await this.load();
    const previous = state[definition.logicalId];
    if (previous && isDeepStrictEqual(previous.properties, definition.properties)) {
      return { action: 'unchanged', physicalResourceId: previous.physicalResourceId, data: previous.data };
    }
    const base = {
      ServiceToken: definition.serviceToken,
      ResponseURL: 'http://localhost/not-used-by-the-provider-framework',
      StackId: definition.stackId,
      RequestId: randomUUID(),
      LogicalResourceId: definition.logicalId,
      ResourceType: definition.resourceType,
      ResourceProperties: definition.properties,
    };
    const result = await this.send(
      definition.onEvent,
      previous
        ? {
            ...base,
            RequestType: 'Update',
            PhysicalResourceId: previous.physicalResourceId,
            OldResourceProperties: previous.properties,
          }
        : { ...base, RequestType: 'Create' },
    );
    const physicalResourceId = result.PhysicalResourceId ?? previous?.physicalResourceId ?? base.RequestId;
    const replaced = previous !== undefined && physicalResourceId !== previous.physicalResourceId;
    state[definition.logicalId] = {
      resourceType: definition.resourceType,
      serviceToken: definition.serviceToken,
      onEvent: definition.onEvent,
      properties: definition.properties,
      physicalResourceId,
      data: stringValues(result.Data),
    };
    await this.save(state);
    if (replaced && previous) await this.delete(definition.logicalId, previous, definition.stackId);
    return {
      action: previous ? (replaced ? 'replaced' : 'updated') : 'created',
      physicalResourceId,
      data: stringValues(result.Data),
    };
  }

  /** Deletes each custom resource a previous deployment made that the template no longer holds. */
  async deleteMissing(present: readonly string[]): Promise<void> {
    const state = await this.load();
    for (const [logicalId, deployed] of Object.entries(state)) {
      if (present.includes(logicalId)) continue;
      await this.delete(logicalId, deployed, '');
      delete state[logicalId];
      await this.save(state);
    }
  }

  private async delete(logicalId: string, deployed: Deployed, stackId: string): Promise<void> {
    await this.send(deployed.onEvent, {
      RequestType: 'Delete',
      ServiceToken: deployed.serviceToken,
      ResponseURL: 'http://localhost/not-used-by-the-provider-framework',
      StackId: stackId,
      RequestId: randomUUID(),
      LogicalResourceId: logicalId,
      ResourceType: deployed.resourceType,
      PhysicalResourceId: deployed.physicalResourceId,
      ResourceProperties: deployed.properties,
    });
  }

  private async send(
    onEvent: string,
    event: Record<string, unknown>,
  ): Promise<{ PhysicalResourceId?: string; Data?: Record<string, unknown> }> {
    const result = await this.invoke(onEvent, event);
    if (!result.ok) {
      throw new Error(
        `${String(event.LogicalResourceId)} failed to ${String(event.RequestType).toLowerCase()}: ${result.errorType}: ${result.errorMessage}`,
      );
    }
    return result.payload ?? {};
  }

  private load(): Promise<Record<string, Deployed>> {
    this.state ??= readFile(this.file, 'utf8').then(
      (text) => JSON.parse(text) as Record<string, Deployed>,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return {};
        throw error;
      },
    );
    return this.state;
  }

  /** Written beside and renamed; the data may hold secrets a custom resource returned (NoEcho), so for this user only. */
  private async save(state: Record<string, Deployed>): Promise<void> {
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.file);
  }
}

function stringValues(data: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([key, value]) => [key, String(value)]));
}
