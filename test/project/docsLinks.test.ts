/**
 * Every relative link in the README and the docs resolves: the file exists, and a `#fragment`
 * names a heading of that file (GitHub's slugs). Links in code blocks are text, not links.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'bench/README.md',
  'bench/e2e/README.md',
].filter((page) => existsSync(join(ROOT, page)));

/** The `(target)` of every `[text](target)` outside code fences and inline code. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const text = line
      .split('`')
      .filter((_, i) => i % 2 === 0)
      .join('');
    for (let at = text.indexOf(']('); at >= 0; at = text.indexOf('](', at + 2)) {
      const end = text.indexOf(')', at + 2);
      if (end > at) targets.push(text.slice(at + 2, end).trim());
    }
  }
  return targets;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  let out = '';
  for (const c of heading.trim().toLowerCase()) {
    if (c === ' ') out += '-';
    else if (c === '-' || c === '_' || /[\p{L}\p{N}]/u.test(c)) out += c;
  }
  return out;
}

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith('#')) found.add(slug(line.replace(/^#+/, '').replaceAll('`', '')));
  }
  return found;
}

describe('links in the README and docs', () => {
  it.each(PAGES)('%s: every relative link resolves', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const target of linkTargets(text)) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [path = '', fragment] = target.split('#');
      const file = path === '' ? join(ROOT, page) : join(dirname(join(ROOT, page)), decodeURI(path));
      if (!existsSync(file)) broken.push(`${target}: no ${relative(ROOT, file)}`);
      else if (fragment !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment))
        broken.push(`${target}: no heading #${fragment} in ${relative(ROOT, file)}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds links, and reports a missing file and a missing heading', () => {
    const sample = '[a](docs/lambda.md) [b](#nope) `[c](skipped.md)`\n```\n[d](fenced.md)\n```\n[e](x.md#y)';
    expect(linkTargets(sample)).toEqual(['docs/lambda.md', '#nope', 'x.md#y']);
    expect(slug('The `check` command: exit 2 & perf_data')).toBe('the-check-command-exit-2--perf_data');
  });

  it('the README links both contracts and no page is headed as a draft', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(linkTargets(readme)).toEqual(expect.arrayContaining(['docs/report-json.md', 'docs/rules-and-cli.md']));
    const drafts = PAGES.filter((page) => /draft/i.test(readFileSync(join(ROOT, page), 'utf8').split('\n')[0] ?? ''));
    expect(drafts).toEqual([]);
  });
});
