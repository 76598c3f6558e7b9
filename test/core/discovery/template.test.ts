import { describe, expect, it } from 'vitest';
import { parseTemplate, renderTemplate } from '../../../src/core/discovery/template.ts';

const EC2 = { allowPublic: false, hasPort: false };
const FIELDS = 'privateIp, privateDns, publicIp, instanceId, availabilityZone, port, tag:<Key>';

describe('parseTemplate', () => {
  it.each([
    ['fields and tags', 'http://{{privateIp}}:{{ tag:Status Port }}/server-status?auto', EC2, []],
    ['no hole at all', 'http://status.internal/', EC2, []],
    [
      'a field in the wrong case',
      'http://{{privateIP}}/',
      EC2,
      [`expected a field ${FIELDS}, found "{{privateIP}}" (did you mean privateIp or privateDns?)`],
    ],
    ['an unknown field', '{{hostname}}', EC2, [`expected a field ${FIELDS}, found "{{hostname}}"`]],
    ['an empty tag key', 'web-{{tag:}}', EC2, ['expected a tag key after "tag:", found "{{tag:}}"']],
    [
      'an unclosed hole',
      'http://{{privateIp}}/{{instanceId',
      EC2,
      ['expected "}}" to close the "{{" at character 22, found the end of the template "{{instanceId"'],
    ],
    ['a close without open', 'web}}-{{instanceId}}', EC2, ['expected "{{" before the "}}" at character 4, found none']],
    [
      'publicIp without allowPublic',
      'http://{{publicIp}}/',
      EC2,
      [
        'expected allowPublic: true beside {{publicIp}} (a public address is reached across the internet), found no allowPublic',
      ],
    ],
    ['publicIp with allowPublic', 'http://{{publicIp}}/', { allowPublic: true, hasPort: false }, []],
    [
      'port outside elbv2',
      'http://{{privateIp}}:{{port}}/',
      EC2,
      ["expected {{port}} only with source elbv2 (it is the target group's port), found another source"],
    ],
    ['port with elbv2', 'http://{{privateIp}}:{{port}}/', { allowPublic: false, hasPort: true }, []],
    [
      'every problem at once',
      '{{ip}}-{{tag:}}-{{publicIp}}',
      EC2,
      [
        `expected a field ${FIELDS}, found "{{ip}}"`,
        'expected a tag key after "tag:", found "{{tag:}}"',
        'expected allowPublic: true beside {{publicIp}} (a public address is reached across the internet), found no allowPublic',
      ],
    ],
  ])('%s', (_, text, context, problems) => {
    expect(parseTemplate(text, context).problems).toEqual(problems);
  });
});

describe('renderTemplate', () => {
  const instance = {
    instanceId: 'i-1',
    privateIp: '10.0.0.7',
    privateDns: '',
    availabilityZone: 'eu-west-1b',
    port: 8080,
    tags: { Name: 'web', 'Status Port': '8081', Empty: '' },
  };
  const ctx = { allowPublic: true, hasPort: true };
  it.each([
    [
      'fields, a port and a tag with a space',
      'http://{{privateIp}}:{{tag:Status Port}}/{{port}}',
      { ok: true, text: 'http://10.0.0.7:8081/8080' },
    ],
    [
      'name of a tag and an id',
      '{{tag:Name}}-{{instanceId}}-{{availabilityZone}}',
      { ok: true, text: 'web-i-1-eu-west-1b' },
    ],
    ['a field the instance lacks', 'http://{{publicIp}}/', { ok: false, missing: '{{publicIp}}' }],
    ['an empty field counts as absent', 'http://{{privateDns}}/', { ok: false, missing: '{{privateDns}}' }],
    ['an empty tag counts as absent', '{{tag:Empty}}', { ok: false, missing: '{{tag:Empty}}' }],
    ['a tag the instance lacks', '{{tag:Team}}', { ok: false, missing: '{{tag:Team}}' }],
  ])('%s', (_, text, expected) => {
    const { template, problems } = parseTemplate(text, ctx);
    expect(problems).toEqual([]);
    expect(renderTemplate(template, instance)).toEqual(expected);
  });
});
