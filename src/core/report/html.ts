// Placeholder until the html parser lands: keeps parse.ts compiling.
import { NotAStatusReportError } from '../errors.ts';
import type { StatusReport } from './types.ts';

function parseHtml(_text: string): StatusReport {
  throw new NotAStatusReportError('the html parser', 'it not written yet');
}

export { parseHtml };
