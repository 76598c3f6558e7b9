/**
 * Chatbot per subscription: the page goes to the alert topic as always, then a copy in AWS
 * Chatbot's format goes to the chat topic, which only Chatbot subscribes to. The copy never fails
 * the page: a page already published must not be published again because chat was down (the
 * claim -> publish -> commit sequence would resend it), so a failed copy is reported and dropped.
 */

import type { Notifier } from '../app/ports.ts';
import type { Notification } from '../core/alerts/types.ts';

/**
 * @example
 * const notifier = withChatCopy(alerts, chat, (error, n) => logger.error('chat copy lost', { fingerprint: n.fingerprint, error }));
 */
function withChatCopy(
  page: Notifier,
  chat: Notifier,
  onCopyFailed: (error: unknown, notification: Notification) => void,
): Notifier {
  return {
    async publish(notification) {
      await page.publish(notification);
      try {
        await chat.publish(notification);
      } catch (error) {
        onCopyFailed(error, notification);
      }
    },
  };
}

export { withChatCopy };
