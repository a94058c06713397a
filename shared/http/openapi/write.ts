import { writeFileSync } from 'node:fs';
import { openApiFiles } from '#shared/http/openapi/files';

// `npm run openapi`: regenerate docs/openapi.json and docs/api.html from the code.
for (const [path, text] of Object.entries(await openApiFiles(process.cwd()))) {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path}\n`);
}
