/** DynamoDB's conditional writes, for every adapter that makes them (the state table, the PagerDuty ledger). */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** A failed condition is an answer (another writer got there first), not an error. */
async function conditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException')
      return false;
    throw error;
  }
}

export { conditional };
