/**
 * Sends Events API v2 events to PagerDuty. 2xx is delivered; 429, 5xx and network failures are
 * retried with exponential backoff; any other answer (400: an invalid event) is final. An event
 * that still fails throws, so the Lambda's asynchronous retries and dead-letter queue take over.
 */
import {
  DEFAULT_PAGERDUTY_ATTEMPTS,
  DEFAULT_PAGERDUTY_BACKOFF_MS,
  DEFAULT_PAGERDUTY_EVENTS_URL,
  DEFAULT_PAGERDUTY_TIMEOUT_MS,
  MAX_PAGERDUTY_BACKOFF_MS,
} from '../core/constants.ts';
import { describeInput } from '../core/errors.ts';
import { PagerDutyDeliveryError, type PagerDutySender } from '../forwarder/ports.ts';

interface PagerDutySenderOptions {
  /** Events API endpoint (default the public v2 enqueue URL). */
  url?: string;
  /** Attempts in all, including the first. */
  maxAttempts?: number;
  /** Base of the exponential backoff in ms; doubled per attempt, capped. */
  backoffMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const retryable = (status: number) => status === 429 || status >= 500;

/** `Retry-After` in seconds, when PagerDuty sends one. */
function retryAfterMs(response: Response): number | null {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

/** Why there was no answer: `fetch failed (ECONNREFUSED)`, or the timeout. */
function noAnswer(error: unknown): string {
  const e = error as Error & { cause?: { code?: string } };
  return e.cause?.code === undefined ? e.message : `${e.message} (${e.cause.code})`;
}

/**
 * @example
 * const sender = createPagerDutySender({ url: process.env.PAGERDUTY_EVENTS_URL });
 * for (const event of pagerDutyEvents(message, routingKey, EVENTS_PER.group)) await sender.send(event);
 */
function createPagerDutySender(options: PagerDutySenderOptions = {}): PagerDutySender {
  const url = options.url ?? DEFAULT_PAGERDUTY_EVENTS_URL;
  const maxAttempts = options.maxAttempts ?? DEFAULT_PAGERDUTY_ATTEMPTS;
  const backoffMs = options.backoffMs ?? DEFAULT_PAGERDUTY_BACKOFF_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PAGERDUTY_TIMEOUT_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return {
    async send(event) {
      const body = JSON.stringify(event);
      for (let attempt = 1; ; attempt++) {
        let wait = Math.min(backoffMs * 2 ** (attempt - 1), MAX_PAGERDUTY_BACKOFF_MS);
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
            signal: AbortSignal.timeout(timeoutMs),
          });
          if (response.ok) {
            await response.body?.cancel();
            return;
          }
          const found = `HTTP ${response.status} ${describeInput(await response.text(), 200)}`;
          if (!retryable(response.status) || attempt >= maxAttempts)
            throw new PagerDutyDeliveryError(event, attempt, found, response.status);
          wait = Math.min(retryAfterMs(response) ?? wait, MAX_PAGERDUTY_BACKOFF_MS);
        } catch (error) {
          if (error instanceof PagerDutyDeliveryError) throw error;
          // No answer at all (refused, reset, timeout): worth another try.
          if (attempt >= maxAttempts)
            throw new PagerDutyDeliveryError(event, attempt, noAnswer(error), null, { cause: error });
        }
        await sleep(wait);
      }
    },
  };
}

export type { PagerDutySenderOptions };
export { createPagerDutySender };
