/**
 * Pages' JSON in tests, through the message types of src/core/message/alertMessage.ts: a page a
 * test builds with only the fields its reader uses, and every field of every kind to read one of
 * a page whose kind the test does not narrow first.
 */
import type { PublishedMessage } from '../../src/core/message/alertMessage.ts';

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type ValueIn<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/** Any page's JSON as every kind's fields, each optional. */
type AnyMessage = { [K in KeysOfUnion<PublishedMessage>]?: ValueIn<PublishedMessage, K> };

/** A page's fields, whichever kind it is (undefined where its kind has no such field). */
const messageFields = (message: PublishedMessage | undefined): AnyMessage => message ?? {};

/**
 * A page with only the fields the code under test reads (the readers read no others): typed as a
 * published message, though no writer would write it so short.
 */
const partialMessage = (fields: AnyMessage & Record<string, unknown>): PublishedMessage => fields as PublishedMessage;

export type { AnyMessage };
export { messageFields, partialMessage };
