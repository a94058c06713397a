import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { stackFromContext } from '#infra/app-props';
import { AuthorizationServiceStack } from '#infra/stack';

const app = new App();
const { stackName, props } = stackFromContext(app);
new AuthorizationServiceStack(app, stackName, props);
// cdk-nag's AwsSolutions pack on every synth: an unacknowledged error fails it.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
