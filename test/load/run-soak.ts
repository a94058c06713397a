import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { soak } from '#test/load/soak';

const help = `Usage: npm run soak [-- options]

Runs the full approval flow with many users for a fixed time against the local runtime (npm start's entry point in a
process of its own, with a webhook receiver), then checks what the run left behind: every request in exactly the
final state it was driven to, no user holding two pending requests, every answer's webhook received and verified, an
empty dead-letter queue, and that the runtime's memory held level (for runs of a minute or more). With --restart-at
it kills the runtime (SIGKILL) in the middle of the run and starts it again on the same data: the flows it cut short
are settled, and the checks still hold, except for webhooks of answers given in the 2 s before the kill, which the
local in-memory queue loses (SQS keeps them). Prints the report and writes bench-results/soak.json; exits 1 if a
check failed. CI runs a short form of it (test/e2e/soak.test.ts).

Options:
  --seconds <n>      how long to run (default 120)
  --users <n>        linked users (default 40)
  --concurrency <n>  flows in flight at once (default 8)
  --no-abandon       never leave a request to expire (each abandoned one holds its user for 30 s)
  --restart-at <s>   kill the runtime this many seconds into the run and start it again
  -h, --help         show this help`;

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    users: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '8' },
    'no-abandon': { type: 'boolean' },
    'restart-at': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(help);
  process.exit(0);
}

process.env.NODE_NO_WARNINGS = '1';
const report = await soak({
  seconds: Number(values.seconds),
  users: Number(values.users),
  concurrency: Number(values.concurrency),
  abandon: !values['no-abandon'],
  ...(values['restart-at'] === undefined ? {} : { restartAt: Number(values['restart-at']) }),
});
console.log(JSON.stringify(report, null, 2));
await mkdir('bench-results', { recursive: true });
await writeFile('bench-results/soak.json', `${JSON.stringify(report, null, 2)}\n`);
process.exitCode = report.ok ? 0 : 1;
