/**
 * Hostile text through the real notification builder and the real SNS message builder, for every
 * variant: what people read (subject, e-mail/default text, SMS, Chatbot title and description) is
 * defanged; what machines read (the JSON payload) keeps the sanitised value; the whole publish
 * stays within SNS limits whatever the input size.
 */
import type { PublishCommandInput } from '@aws-sdk/client-sns';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPublishInput } from '../../src/adapters/snsMessage.ts';
import { stepAlert } from '../../src/core/alerts/step.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { MAX_SNS_PUBLISH_BYTES } from '../../src/core/constants.ts';
import { buildNotification } from '../../src/core/notify/build.ts';
import { DEFAULT_RULES, parseRulesDocuments } from '../../src/core/rules/document.ts';
import { BUSY_MODES } from '../../src/core/rules/metrics.ts';
import type { Observation, Rule } from '../../src/core/rules/types.ts';
import { cleanReportText } from '../../src/core/text/sanitize.ts';
import { loadReport } from '../core/support/reports.ts';
import { partialMessage } from '../support/messages.ts';

const NOW = new Date('2026-11-22T12:02:00Z');
const REPORT = loadReport('prefork-busy/report.html');
const ARN = 'arn:aws:sns:eu-west-1:123456789012:alerts';

/** Payloads as an attacker would send them, in a request line, a Host header or a response. */
const CORPUS: Array<[string, string]> = [
  ['a fake acknowledge link in a request line', 'GET https://evil.example/oncall/ack?incident=1 HTTP/1.1'],
  ['Slack link', '<https://evil.example/ack|Click to acknowledge>'],
  ['Slack mentions', '<!channel> <!here> <@U0123ABC> @oncall'],
  ['Slack mrkdwn', '*bold* _italic_ ~strike~ `code` ```block``` > quote'],
  ['Markdown link', '[acknowledge](https://evil.example/ack)'],
  ['Markdown image', '![x](https://evil.example/pixel.png)'],
  ['Markdown emphasis', '**bold** __under__ # Heading'],
  ['HTML link', '<a href="https://evil.example/ack">acknowledge</a>'],
  ['HTML script', '<img src=x onerror=alert(1)><script>alert(1)</script>'],
  ['a forged line', 'GET /\r\n[FIRING critical] web-9: disk full, run https://evil.example/fix.sh\r\n'],
  ['ANSI colours', '\u001b[31mRED\u001b[0m'],
  ['an OSC 8 terminal hyperlink', '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007'],
  ['bidi override', 'GET /\u202egnp.evil\u202c HTTP/1.1'],
  ['bidi isolates', '\u2066evil\u2069.example'],
  ['zero-width characters', 'ev\u200bil.exa\u200dmple\ufeff'],
  ['homoglyph domain', 'https://\u0430pple.com/login'],
  ['ideographic full stop', 'evil\u3002example'],
  ['full-width dot', 'evil\uff0eexample'],
  ['a bare domain', 'see www.evil.example'],
  ['mailto', 'mailto:oncall@evil.example'],
  ['javascript', 'javascript:alert(document.cookie)'],
  ['very long', `https://evil.example/${'A'.repeat(100_000)}`],
];

/** What no human-readable variant may contain, whatever the payload. */
const FORBIDDEN = [
  /https?:\/\//i,
  /evil\s*[.\u3002\uff0e]/i,
  /pple\.com/,
  /<[a-z!@/]/i,
  /\]\(/,
  /!\[/,
  /\*\*|\*bold/,
  /_italic_|__under__|~strike~/,
  /`/,
  /javascript:alert\(/,
  /mailto:oncall@/,
  // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting they are gone
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/,
];

const closingRule = parseRulesDocuments([
  {
    source: 't',
    text: JSON.stringify({ rules: [{ name: 'closing-pileup', metric: 'slots_closing', op: '>=', threshold: 3 }] }),
  },
])[0] as Rule;
const idleRule = { ...(DEFAULT_RULES.find((r) => r.name === 'idle-slots-low') as Rule), forMs: 0 };
const downRule = DEFAULT_RULES.find((r) => r.name === 'target-down') as Rule;

function notificationFor(rule: Rule, value: number, observation: Observation, target = 'web-1', labels = {}) {
  const alert = stepAlert(null, rule, target, { kind: 'value', value, holds: true }, NOW);
  return buildNotification({
    rule,
    alert,
    reason: 'first',
    target,
    labels,
    observation,
    consecutiveFailures: 2,
    now: NOW,
  });
}

/** The report with `text` as client, vhost and request of every slot the rule lists. */
function reportWith(text: string, modes: string): Observation {
  const slots = (REPORT.slots ?? []).map((s) =>
    modes.includes(s.mode) ? { ...s, client: text, vhost: text, request: text } : s,
  );
  return { kind: 'report', report: { ...REPORT, slots } };
}

interface Variants {
  human: Record<string, string>;
  payloads: unknown[];
}

function variantsOf(input: PublishCommandInput): Variants {
  const envelope = JSON.parse(input.Message as string) as Record<string, string>;
  const chatbot = JSON.parse(envelope.https as string) as { content?: { title: string; description: string } };
  const human: Record<string, string> = {
    subject: input.Subject as string,
    default: envelope.default as string,
    email: envelope.email as string,
    sms: envelope.sms as string,
  };
  const payloads = ['email-json', 'sqs', 'lambda', 'http'].map((k) => JSON.parse(envelope[k] as string));
  if (chatbot.content) {
    // The text sits in a code block: our fence, which report text cannot close (no backticks in it).
    const { title, description } = chatbot.content;
    expect(description.startsWith('```\n') && description.endsWith('\n```')).toBe(true);
    human.chatbotTitle = title;
    human.chatbotDescription = description.slice(4, -4);
  } else payloads.push(chatbot);
  return { human, payloads };
}

/** Bytes SNS counts for a publish: the message, the subject and every attribute's name, type and value. */
function publishBytes(input: PublishCommandInput): number {
  let bytes = Buffer.byteLength(input.Message as string) + Buffer.byteLength(input.Subject ?? '');
  for (const [name, a] of Object.entries(input.MessageAttributes ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(a.DataType ?? '') + Buffer.byteLength(a.StringValue ?? '');
  }
  return bytes;
}

const CASES = [
  ['closing-pileup (slots in C)', (text: string) => notificationFor(closingRule, 3, reportWith(text, 'C'))],
  ['idle-slots-low (busy slots)', (text: string) => notificationFor(idleRule, 0.031, reportWith(text, BUSY_MODES))],
  [
    'target-down (fetched text)',
    (text: string) => notificationFor(downRule, 0, { kind: 'down', reason: 'redirect', detail: text }),
  ],
] as const;

describe('Hostile text through buildNotification and buildPublishInput', () => {
  const benign = Object.fromEntries(CASES.map(([name, make]) => [name, make('x').message.split('\n').length]));

  describe.each(CASES)('%s', (name, make) => {
    it.each(CORPUS)('%s: defanged for people, sanitised data for machines, within SNS limits', (_, payload) => {
      // Act
      const n = make(payload);
      const plain = variantsOf(buildPublishInput(n, ARN));
      const chat = variantsOf(buildPublishInput(n, ARN, { chatbotFormat: true }));

      // Assess: every human variant, both ways
      for (const [variant, text] of Object.entries({ ...plain.human, ...chat.human })) {
        for (const pattern of FORBIDDEN)
          expect({ variant, match: pattern.exec(text)?.[0] }).toEqual({ variant, match: undefined });
        expect(text).toMatch(/^[\x20-\x7e\n]*$/);
      }
      // No forged or missing lines: the same layout as for harmless text.
      expect(plain.human.default?.split('\n')).toHaveLength(benign[name] as number);
      // Machines get the value itself: invisible characters stripped, capped, nothing defanged.
      const data = (max: number) => cleanReportText(payload, { max, use: 'data' });
      for (const p of [...plain.payloads, ...chat.payloads] as Array<Record<string, unknown>>) {
        if (n.rule === 'target-down') expect((p.down as { detail: string }).detail).toBe(data(300));
        else expect((p.offenders as { requests: Array<{ name: string }> }).requests[0]?.name).toBe(data(80));
      }
      expect(publishBytes(buildPublishInput(n, ARN, { chatbotFormat: true }))).toBeLessThan(MAX_SNS_PUBLISH_BYTES);
    });
  });

  it('keeps the fake acknowledge link usable for machines', () => {
    const n = notificationFor(closingRule, 3, reportWith(CORPUS[0]?.[1] as string, 'C'));
    const { payloads } = variantsOf(buildPublishInput(n, ARN));
    expect((payloads[0] as { offenders: { requests: unknown } }).offenders.requests).toEqual([
      { name: 'GET https://evil.example/oncall/ack?incident=1 HTTP/1.1', count: 3 },
    ]);
  });
});

describe('buildPublishInput: within SNS limits whatever the input', () => {
  const big = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 3000 }),
    fc.nat(120_000).map((n) => '"\\\n\u00e9\u{1F600}\u0001'.repeat(n / 8)),
  );

  it('built notifications: the publish stays under 256 KB, the subject under 100 ASCII characters', () => {
    fc.assert(
      fc.property(
        big,
        fc.string({ maxLength: 500 }),
        fc.dictionary(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), { maxKeys: 500 }),
        fc.boolean(),
        (text, target, labels, chatbotFormat) => {
          for (const [, make] of CASES) {
            const n = { ...make(text), target, labels };
            const input = buildPublishInput(n, ARN, { chatbotFormat });
            expect(publishBytes(input)).toBeLessThan(MAX_SNS_PUBLISH_BYTES);
            expect(input.Subject).toMatch(/^[\x20-\x7e]{1,99}$/);
          }
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);

  it('any notification, even one built elsewhere with megabytes in every field, is cut to fit', () => {
    fc.assert(
      fc.property(big, big, big, fc.boolean(), (message, subject, target, chatbotFormat) => {
        // Prepare: a notification as a caller outside core/notify could build it
        const n: Notification = {
          fingerprint: 'f',
          status: 'firing',
          reason: 'first',
          target,
          rule: 'configuration',
          severity: 'warning',
          value: null,
          threshold: 0,
          subject: `[FIRING warning] ${subject}`,
          message,
          payload: partialMessage({ version: 1, problems: [message, message, message], runbook: message }),
          labels: {},
        };

        // Act
        const input = buildPublishInput(n, ARN, { chatbotFormat });

        // Assess
        expect(publishBytes(input)).toBeLessThan(MAX_SNS_PUBLISH_BYTES);
        expect(input.Subject).toMatch(/^\[FIRING warning\] [\x20-\x7e]{0,82}$/);
        const envelope = JSON.parse(input.Message as string);
        expect(JSON.parse(envelope.sqs)).toBeTypeOf('object');
        expect(JSON.parse(envelope.https)).toBeTypeOf('object');
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
