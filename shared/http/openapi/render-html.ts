/**
 * docs/api.html: the OpenAPI document as one static page that needs nothing but itself: no script, no stylesheet,
 * font or image from anywhere. It renders exactly the parts of OpenAPI 3.1 the generator writes.
 */
type Json = { readonly [key: string]: unknown };

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

const asJson = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
const asList = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
const asText = (value: unknown): string => (typeof value === 'string' ? value : '');

function escape(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** Escaped text with `code` spans, and links to docs/protocol.md next to this page. */
function prose(text: string): string {
  return escape(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/docs\/protocol\.md#([\w-]+)/g, '<a href="protocol.md#$1">docs/protocol.md#$1</a>');
}

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const schemaAnchor = (name: string) => `schema-${name}`;

class Renderer {
  private readonly schemas: Json;
  private readonly responses: Json;
  private readonly headers: Json;

  constructor(private readonly document: Json) {
    const components = asJson(document.components);
    this.schemas = asJson(components.schemas);
    this.responses = asJson(components.responses);
    this.headers = asJson(components.headers);
  }

  page(): string {
    const info = asJson(this.document.info);
    const title = `${asText(info.title)} ${asText(info.version)}`;
    const overview = asText(info.description)
      .split('\n\n')
      .map((paragraph) => `<p>${prose(paragraph)}</p>`)
      .join('\n');
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} API</title>
<style>${style}</style>
</head>
<body>
<header>
<h1>${escape(title)} API</h1>
<p class="meta">OpenAPI ${escape(asText(this.document.openapi))}: generated from <a href="openapi.json">openapi.json</a> by <code>npm run openapi</code>.</p>
${overview}
</header>
${this.contents()}
<main>
${this.operationSections()}
${this.webhookSection()}
${this.schemaSection()}
</main>
</body>
</html>
`;
  }

  private operationsByTag(): Map<string, { path: string; method: string; operation: Json }[]> {
    const byTag = new Map<string, { path: string; method: string; operation: Json }[]>();
    for (const tag of asList(this.document.tags)) byTag.set(asText(asJson(tag).name), []);
    for (const [path, item] of Object.entries(asJson(this.document.paths))) {
      for (const method of methods) {
        const operation = asJson(asJson(item)[method]);
        if (!operation.operationId) continue;
        const tag = asText(asList(operation.tags)[0]);
        byTag.set(tag, [...(byTag.get(tag) ?? []), { path, method, operation }]);
      }
    }
    return byTag;
  }

  private contents(): string {
    const groups = [...this.operationsByTag()].map(
      ([tag, entries]) => `<li>${escape(tag)}<ul>
${entries
  .map(
    ({ path, method, operation }) =>
      `<li><a href="#${escape(asText(operation.operationId))}"><span class="method">${method.toUpperCase()}</span> <code>${escape(path)}</code></a> ${escape(asText(operation.summary))}</li>`,
  )
  .join('\n')}
</ul></li>`,
    );
    const webhooks = Object.values(asJson(this.document.webhooks)).map((item) => {
      const operation = asJson(asJson(item).post);
      return `<li><a href="#${escape(asText(operation.operationId))}">${escape(asText(operation.summary))}</a></li>`;
    });
    return `<nav>
<h2>Contents</h2>
<ul>
${groups.join('\n')}
<li><a href="#webhooks">Webhooks</a><ul>
${webhooks.join('\n')}
</ul></li>
<li><a href="#schemas">Schemas</a></li>
</ul>
</nav>`;
  }

  private operationSections(): string {
    const tagDescriptions = new Map(
      asList(this.document.tags).map((tag) => [asText(asJson(tag).name), asText(asJson(tag).description)]),
    );
    return [...this.operationsByTag()]
      .map(
        ([tag, entries]) => `<section>
<h2>${escape(tag)}</h2>
<p>${prose(tagDescriptions.get(tag) ?? '')}</p>
${entries.map(({ path, method, operation }) => this.operation(method, path, operation)).join('\n')}
</section>`,
      )
      .join('\n');
  }

  private operation(method: string, path: string, operation: Json): string {
    const signers = asList(operation['x-signed-by']).map(asText);
    const signedBy =
      signers.length === 0
        ? 'unsigned'
        : `${signers.map((signer) => `<code>${escape(signer)}</code>`).join(', ')} (sub <code>${escape(asText(operation['x-subject']))}</code>)`;
    return `<article id="${escape(asText(operation.operationId))}">
<h3><span class="method">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p class="summary">${prose(asText(operation.summary))}</p>
<p class="subject">Signed by: ${signedBy}</p>
<p>${prose(asText(operation.description))}</p>
${this.parameters(asList(operation.parameters))}
${this.requestBody(asJson(operation.requestBody))}
${this.responseTable(asJson(operation.responses))}
</article>`;
  }

  private parameters(parameters: readonly unknown[]): string {
    if (parameters.length === 0) return '';
    const rows = parameters.map((value) => {
      const parameter = asJson(value);
      return `<tr><td><code>${escape(asText(parameter.name))}</code></td><td>${escape(asText(parameter.in))}</td><td>${this.type(asJson(parameter.schema))}</td><td>${prose(asText(parameter.description))}</td></tr>`;
    });
    return `<h4>Parameters</h4>
<table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
  }

  private requestBody(body: Json): string {
    const content = Object.entries(asJson(body.content));
    const [first] = content;
    if (!first) return '';
    const mediaTypes = content.map(([mediaType]) => `<code>${escape(mediaType)}</code>`).join(' or ');
    const schema = asJson(asJson(first[1]).schema);
    const plaintext = schema.contentSchema === undefined ? schema : asJson(schema.contentSchema);
    const name = typeof plaintext.$ref === 'string' ? refName(plaintext.$ref) : undefined;
    const resolved = name === undefined ? plaintext : asJson(this.schemas[name]);
    return `<h4>Request body: ${mediaTypes}${name === undefined ? '' : `, <a href="#${schemaAnchor(name)}">${escape(name)}</a>`}</h4>
${body.description === undefined ? '' : `<p>${prose(asText(body.description))}</p>`}
${resolved.description === undefined ? '' : `<p>${prose(asText(resolved.description))}</p>`}
${this.fields(resolved)}`;
  }

  private responseTable(responses: Json): string {
    const rows = Object.entries(responses).map(([status, value]) => {
      let response = asJson(value);
      if (typeof response.$ref === 'string') response = asJson(this.responses[refName(response.$ref)]);
      const bodies = Object.entries(asJson(response.content)).map(
        ([mediaType, media]) =>
          `<code>${escape(mediaType)}</code>: ${this.type(asJson(asJson(media).schema))}`,
      );
      const headers = Object.keys(asJson(response.headers)).map((name) => `<code>${escape(name)}</code>`);
      return `<tr><td>${escape(status)}</td><td>${prose(asText(response.description))}</td><td>${bodies.join('<br>') || 'no body'}</td><td>${headers.join(', ')}</td></tr>`;
    });
    return `<h4>Responses</h4>
<table><thead><tr><th>Status</th><th>Description</th><th>Body</th><th>Headers</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
  }

  private webhookSection(): string {
    const items = Object.values(asJson(this.document.webhooks)).map((item) => {
      const operation = asJson(asJson(item).post);
      return `<article id="${escape(asText(operation.operationId))}">
<h3><span class="method">POST</span> ${prose(asText(operation.summary))}</h3>
<p>${prose(asText(operation.description))}</p>
${this.parameters(asList(operation.parameters))}
${this.requestBody(asJson(operation.requestBody))}
${this.responseTable(asJson(operation.responses))}
</article>`;
    });
    return `<section id="webhooks">
<h2>Webhooks</h2>
<p>What the service POSTs to an application's callback_url or webhook_url.</p>
${items.join('\n')}
</section>`;
  }

  private schemaSection(): string {
    const headers = Object.entries(this.headers).map(
      ([name, header]) =>
        `<tr><td><code>${escape(name)}</code></td><td>${prose(asText(asJson(header).description))}</td></tr>`,
    );
    const schemas = Object.entries(this.schemas).map(([name, value]) => {
      const schema = asJson(value);
      const shape = schema.properties === undefined ? `<p>${this.type(schema)}</p>` : this.fields(schema);
      return `<article id="${schemaAnchor(name)}">
<h3>${escape(name)}</h3>
${schema.description === undefined ? '' : `<p>${prose(asText(schema.description))}</p>`}
${shape}
</article>`;
    });
    return `<section id="schemas">
<h2>Schemas</h2>
<h3>Headers</h3>
<table><tbody>
${headers.join('\n')}
</tbody></table>
${schemas.join('\n')}
</section>`;
  }

  /** One row per property, nested objects (and objects in arrays) as `parent.child` and `parent[].child`. */
  private fields(schema: Json): string {
    const rows = this.fieldRows(schema, '');
    if (rows.length === 0) return '';
    return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Rules</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
  }

  private fieldRows(schema: Json, prefix: string): string[] {
    const required = new Set(asList(schema.required).map(asText));
    return Object.entries(asJson(schema.properties)).flatMap(([name, value]) => {
      const property = asJson(value);
      const row = `<tr><td><code>${escape(prefix + name)}</code></td><td>${this.type(property)}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${[rules(property), prose(asText(property.description))].filter(Boolean).join('. ')}</td></tr>`;
      const inner = nonNull(property);
      if (inner.properties !== undefined) return [row, ...this.fieldRows(inner, `${prefix}${name}.`)];
      const items = asJson(inner.items);
      if (items.properties !== undefined) return [row, ...this.fieldRows(items, `${prefix}${name}[].`)];
      return [row];
    });
  }

  /** What a value is, in a few words, with links to named schemas. */
  private type(schema: Json): string {
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      // A reference narrowed in place, such as an error body with its error_data.
      const narrowed = Object.entries(asJson(schema.properties))
        .filter(([, property]) => typeof asJson(property).$ref === 'string')
        .map(([field, property]) => `${escape(field)}: ${this.type(asJson(property))}`);
      const link = `<a href="#${schemaAnchor(name)}">${escape(name)}</a>`;
      return narrowed.length === 0 ? link : `${link} with ${narrowed.join(', ')}`;
    }
    if (schema.contentSchema !== undefined) return `JWE of ${this.type(asJson(schema.contentSchema))}`;
    if (Array.isArray(schema.anyOf))
      return schema.anyOf.map((option) => this.type(asJson(option))).join(' | ');
    if (schema.const !== undefined) return `<code>${escape(JSON.stringify(schema.const))}</code>`;
    if (Array.isArray(schema.enum)) {
      return `one of ${schema.enum.map((value) => `<code>${escape(JSON.stringify(value))}</code>`).join(', ')}`;
    }
    if (schema.type === 'array') return `array of ${this.type(asJson(schema.items))}`;
    if (typeof schema.type === 'string') {
      return schema.format === undefined ? schema.type : `${schema.type} (${escape(asText(schema.format))})`;
    }
    return 'any JSON';
  }
}

/** The schema without its `null` alternative. */
function nonNull(schema: Json): Json {
  const options = asList(schema.anyOf).map(asJson);
  const present = options.filter((option) => option.type !== 'null');
  return present.length === 1 && present[0] ? present[0] : schema;
}

/** The bounds JSON Schema states: lengths, ranges, counts, patterns. */
function rules(schema: Json): string {
  const inner = nonNull(schema);
  const found: string[] = [];
  const range = (low: unknown, high: unknown, unit: string) => {
    const [min, max] = [low, high].map((bound) => (typeof bound === 'number' ? bound : undefined));
    if (min !== undefined && max !== undefined) found.push(`${min} to ${max}${unit}`);
    else if (min !== undefined) found.push(`at least ${min}${unit}`);
    else if (max !== undefined) found.push(`at most ${max}${unit}`);
  };
  range(inner.minLength, inner.maxLength, ' characters');
  range(inner.minimum, inner.maximum, '');
  range(inner.minItems, inner.maxItems, ' items');
  if (typeof inner.pattern === 'string') found.push(`matches <code>${escape(inner.pattern)}</code>`);
  return found.join(', ');
}

const style = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 0 1.5rem 4rem; color: #1d232a; }
h1 { margin-top: 2rem; } h2 { border-bottom: 2px solid #ccd3db; margin-top: 3rem; }
article { border-top: 1px solid #e1e6eb; padding-top: 0.5rem; margin-top: 1.5rem; }
code { font: 13px ui-monospace, monospace; background: #f1f4f7; padding: 0 0.2em; border-radius: 3px; }
.method { font: bold 13px ui-monospace, monospace; color: #fff; background: #3b5b7a; padding: 0.1em 0.4em; border-radius: 3px; }
.summary { font-weight: 600; } .subject, .meta { color: #4a5560; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; font-size: 14px; }
th, td { border: 1px solid #e1e6eb; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } a { color: #1f5f99; }
nav ul { list-style: none; padding-left: 1rem; } nav li { margin: 0.15rem 0; }
`;

/** The page for a document the generator wrote. */
export function renderApiHtml(document: Json): string {
  return new Renderer(document).page();
}
