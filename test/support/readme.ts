/**
 * The README's code blocks as written, for tests that run its examples (the Nagios and Icinga 2
 * definitions) so that the docs are proven to work as a user copies them.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The README's fenced code block that contains `marker`, as written. */
async function readmeBlock(marker: string): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`expected one README code block with ${marker}, found ${found.length}`);
  return found[0] as string;
}

export { readmeBlock };
