import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import packageJson from '../../../package.json' with { type: 'json' };
import { openApiDocument } from '#shared/http/openapi/document';
import { renderApiHtml } from '#shared/http/openapi/render-html';

export const openApiJsonPath = 'docs/openapi.json';
export const apiHtmlPath = 'docs/api.html';

/**
 * What `npm run openapi` writes, by path from the repository root: the document and its offline page, formatted as
 * the repository's prettier formats them, so that `prettier --check` and the staleness test agree.
 */
export async function openApiFiles(root: string): Promise<Record<string, string>> {
  const document = openApiDocument(packageJson.version);
  const options = (await resolveConfig(join(root, openApiJsonPath))) ?? {};
  return {
    [openApiJsonPath]: await format(JSON.stringify(document), { ...options, parser: 'json' }),
    [apiHtmlPath]: await format(renderApiHtml(document), { ...options, parser: 'html' }),
  };
}
