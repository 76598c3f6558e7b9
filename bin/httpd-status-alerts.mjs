#!/usr/bin/env node
// Installed entry point: the CLI is TypeScript, loaded through tsx's ESM hooks.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
