import 'aws-sdk-client-mock-vitest/extend';

// The SDK must never reach a real AWS endpoint from the tests.
process.env.AWS_REGION ??= 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
