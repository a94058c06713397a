import { createSocket } from 'node:dgram';
import { createWriteStream } from 'node:fs';

export interface XrayDaemon {
  /** `127.0.0.1:<port>`, as `AWS_XRAY_DAEMON_ADDRESS` gives it to a traced function. */
  readonly address: string;
  /** Where every segment goes, one JSON document a line. */
  readonly file: string;
  /** Adds a segment of the runner's own (Lambda's segment of an invocation). */
  record(document: object): void;
  close(): Promise<void>;
}

/**
 * A stand-in for the X-Ray daemon Lambda runs beside a traced function: it takes the UDP datagrams the X-Ray SDK sends
 * (a header line, then one segment or subsegment document) and appends each document to `file`.
 */
export async function startXrayDaemon(file: string): Promise<XrayDaemon> {
  const output = createWriteStream(file, { flags: 'a', mode: 0o600 });
  const socket = createSocket('udp4');
  const append = (document: object) => output.write(`${JSON.stringify(document)}\n`);
  socket.on('message', (message) => {
    const text = message.toString('utf8');
    const body = text.slice(text.indexOf('\n') + 1);
    try {
      append(JSON.parse(body) as object);
    } catch {
      append({ unparsed: text });
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    file,
    record: append,
    async close() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await new Promise<void>((resolve) => output.end(resolve));
    },
  };
}
