export interface Organization {
  readonly id: string;
  readonly name: string;
  /** ISO 8601 UTC. */
  readonly created: string;
}
