// Placeholder until the text parser lands: keeps parse.ts compiling.
import { NotAStatusReportError } from '../errors.ts';
import type { StatusReport } from './types.ts';

function parseText(_text: string): StatusReport {
  throw new NotAStatusReportError('the text parser', 'it not written yet');
}

export { parseText };
