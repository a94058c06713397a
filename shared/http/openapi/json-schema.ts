import { type ConversionConfig, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it), as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** Where a named schema lives in the document. */
export const schemaRef = (name: string) => `#/components/schemas/${name}`;

/**
 * Actions JSON Schema cannot say: checks (a callback), transforms and trimming. Their rules are stated in
 * descriptions instead; anything else the converter cannot express stops the generator.
 */
const inexpressibleActions = ['check', 'transform', 'trim'];

/**
 * `source` of a case-insensitive RegExp as a pattern JSON Schema reads case-sensitively: `true` → `[tT][rR][uU][eE]`.
 * A letter inside a character class would need its class rewritten; none does today, so it stops the generator.
 */
export function caseInsensitivePattern(source: string): string {
  let pattern = '';
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const character = source.charAt(index);
    if (character === '\\') {
      pattern += source.slice(index, index + 2);
      index++;
    } else if (inClass) {
      if (/[a-z]/i.test(character)) throw new Error(`Cannot make /${source}/i case-sensitive`);
      if (character === ']') inClass = false;
      pattern += character;
    } else if (character === '[') {
      inClass = true;
      pattern += character;
    } else if (/[a-z]/i.test(character)) {
      pattern += `[${character.toLowerCase()}${character.toUpperCase()}]`;
    } else {
      pattern += character;
    }
  }
  return pattern;
}

/**
 * The JSON Schema of what a client sends: every schema of a pipe contributes its keywords (a display name's length
 * sits in a second string schema), and a reference to another named schema becomes a `$ref` to its component.
 */
const conversion: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'ignore',
  // Only the "more than one schema in a pipe" notice goes unreported: the overrides below stop on anything else.
  errorMode: 'ignore',
  ignoreActions: inexpressibleActions,
  overrideRef: ({ referenceId }) => schemaRef(referenceId),
  overrideAction: ({ valibotAction, jsonSchema, errors }) => {
    const { requirement } = valibotAction as { readonly requirement?: unknown };
    // The converter refuses every flag, and keeps the pattern as if there were none.
    if (requirement instanceof RegExp && requirement.flags === 'i' && errors?.length === 1) {
      return { ...jsonSchema, pattern: caseInsensitivePattern(requirement.source) };
    }
    if (errors) throw new Error(`${valibotAction.type}: ${errors.join('; ')}`);
    return undefined;
  },
  overrideSchema: ({ valibotSchema, errors }) => {
    if (errors) throw new Error(`${valibotSchema.type}: ${errors.join('; ')}`);
    return undefined;
  },
};

/**
 * Named valibot schemas as JSON Schemas, each a component of the document; a schema that uses another of them (by
 * identity) refers to it.
 */
export function toSchemaComponents(
  schemas: Readonly<Record<string, v.GenericSchema>>,
): Record<string, JsonSchema> {
  return toJsonSchemaDefs(schemas, conversion) as Record<string, JsonSchema>;
}
