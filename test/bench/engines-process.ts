import { startEngines } from '#infra/local/engines';

// Runs the embedded engines in a process of their own, so that the store's CPU is not counted as the service's.
const engines = await startEngines(process.argv[2] as string);
process.send?.({ dynamoEndpoint: engines.dynamoEndpoint, sqsEndpoint: engines.sqsEndpoint });
process.on('disconnect', () => {
  void engines.close().finally(() => process.exit(0));
});
